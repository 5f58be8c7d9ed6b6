"""Models of the peer comparison that torchvision does not have, as
factories for run.py's `torch:MODULE:FACTORY` (`torch:models:NAME` names
this file). Each returns (module, default input shape); the weights are
PyTorch's random initialisation under run.py's seed. Plain torch.nn layers
with their default settings: nothing here was tuned for any system."""

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
