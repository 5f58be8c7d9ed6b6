"""The GPU kit's frontend models, as PyTorch modules (needs only torch): the
MLP and the transformer classifier of test/Frontends. export_models.py
imports them into MLIR; run.py builds them again, with the exported
weights, for the PyTorch baseline."""

import torch


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.Sequential(
            torch.nn.Linear(64, 128), torch.nn.ReLU(),
            torch.nn.Linear(128, 64), torch.nn.GELU(),
            torch.nn.Linear(64, 10))

    def forward(self, x):
        return torch.softmax(self.layers(x), dim=-1)


class TransformerClassifier(torch.nn.Module):
    """Token embeddings, one TransformerEncoderLayer, mean pooling, a linear
    head: a small text classifier."""

    def __init__(self, vocabulary=100, width=64, heads=4, classes=5):
        super().__init__()
        self.embed = torch.nn.Embedding(vocabulary, width)
        self.encoder = torch.nn.TransformerEncoderLayer(
            width, heads, 4 * width, dropout=0.0, batch_first=True)
        self.head = torch.nn.Linear(width, classes)

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens)).mean(dim=1))


MODELS = {"mlp": MLP, "transformer": TransformerClassifier}
