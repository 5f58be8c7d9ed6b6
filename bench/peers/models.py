"""Models of the peer comparison that torchvision does not have, as
factories for run.py's `torch:MODULE:FACTORY` (`torch:models:NAME` names
this file). Each returns (module, default input shape); the weights are
PyTorch's random initialisation under run.py's seed (transformers' own
initialisation for hf_bert). Plain torch.nn layers and a transformers
model with their default settings: nothing here was tuned for any
system."""

import torch


def transformer_encoder():
    """A 2-layer torch.nn.TransformerEncoder, d_model 256, 4 heads, MLP
    1024, ReLU, post-norm; batch 2 x 64 tokens of 256 features."""
    layer = torch.nn.TransformerEncoderLayer(256, 4, 1024, batch_first=True)
    return (torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False),
            (2, 64, 256))


def bert_block():
    """One BERT-base-sized encoder block: torch.nn.TransformerEncoderLayer,
    d_model 768, 12 heads, MLP 3072, GELU, post-norm; 1 x 128 tokens."""
    return (torch.nn.TransformerEncoderLayer(768, 12, 3072, activation="gelu",
                                             batch_first=True),
            (1, 128, 768))


class _HFEncoder(torch.nn.Module):
    """A transformers BertModel fed with token embeddings: the peers' input
    is one float tensor, and every system takes it (token ids would leave
    out the converters that need a float input). The attention mask is a
    constant of the model: the last quarter of the positions is padding,
    as in a padded tokenizer batch."""

    def __init__(self, config, tokens):
        super().__init__()
        import transformers
        self.bert = transformers.BertModel(config, add_pooling_layer=False)
        mask = torch.ones(1, tokens, dtype=torch.long)
        mask[:, tokens - tokens // 4:] = 0
        self.register_buffer("mask", mask)

    def forward(self, embeddings):
        mask = self.mask.expand(embeddings.shape[0], -1)
        return self.bert(inputs_embeds=embeddings,
                         attention_mask=mask).last_hidden_state


def hf_bert():
    """An encoder from Hugging Face transformers: BertModel with BERT-mini's
    sizes (4 layers, d_model 256, 4 heads, MLP 1024, GELU, post-norm), from
    its config with random weights (nothing is downloaded), its default
    attention (scaled_dot_product_attention) and a padding mask; 1 x 128
    token embeddings of 256 features."""
    import transformers
    config = transformers.BertConfig(
        hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
        intermediate_size=1024, max_position_embeddings=512)
    return _HFEncoder(config, 128), (1, 128, 256)
