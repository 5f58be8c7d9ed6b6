"""Real models, built as their users build them, through amp_mlir.from_torch.

Hugging Face transformers models from a small config with random weights
(nothing is downloaded), called with their own argument conventions:

- BertModel(input_ids, attention_mask): two i64 inputs, two outputs (the
  last hidden state and the pooler's), non-persistent buffers
  (`position_ids`, `token_type_ids`);
- GPT2LMHeadModel(input_ids): attention through scaled_dot_product_attention
  followed by a reshape and a `view` (what failed with the CPU's flash
  attention strides);
- LlamaForCausalLM(input_ids), which takes a cumsum of the positions (its
  packed-sequence check), and LlamaForCausalLM(input_ids, attention_mask)
  with left padding; rotary embeddings with a non-persistent `inv_freq`;

and torch.cumsum itself (i64 and f32), which from_torch decomposes.

Each is imported with a dynamic batch, compiled at O0 and run on the CPU at
batch 2 and 3, and each output is compared with PyTorch's fp32 output on
the same inputs (rel L2 <= 1e-5). Prints one line per output and batch
ending in `ok` or `FAIL`, then `real models: N checks, all within
tolerance` (exit 0) or `real models: FAILED` (exit 1).
"""

import sys

import numpy as np
import torch
import transformers

import amp_mlir

TOLERANCE = 1e-5


def bert():
    config = transformers.BertConfig(
        vocab_size=100, hidden_size=64, num_hidden_layers=2,
        num_attention_heads=4, intermediate_size=128,
        max_position_embeddings=32)
    model = transformers.BertModel(config)

    def inputs(batch, generator):
        ids = torch.randint(1, 100, (batch, 12), generator=generator)
        mask = torch.ones(batch, 12, dtype=torch.long)
        mask[1:, -4:] = 0   # right padding after the first sample
        return ids, mask
    return model, inputs


def gpt2():
    config = transformers.GPT2Config(
        vocab_size=100, n_positions=32, n_embd=64, n_layer=2, n_head=4,
        use_cache=False, bos_token_id=0, eos_token_id=0)
    model = transformers.GPT2LMHeadModel(config)

    def inputs(batch, generator):
        return (torch.randint(0, 100, (batch, 12), generator=generator),)
    return model, inputs


def llama_config():
    return transformers.LlamaConfig(
        vocab_size=100, hidden_size=64, intermediate_size=128,
        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
        max_position_embeddings=32, use_cache=False, bos_token_id=0,
        eos_token_id=0)


def llama():
    model = transformers.LlamaForCausalLM(llama_config())

    def inputs(batch, generator):
        return (torch.randint(0, 100, (batch, 12), generator=generator),)
    return model, inputs


def llama_masked():
    model = transformers.LlamaForCausalLM(llama_config())

    def inputs(batch, generator):
        ids = torch.randint(1, 100, (batch, 12), generator=generator)
        mask = torch.ones(batch, 12, dtype=torch.long)
        mask[1:, :3] = 0    # left padding after the first sample
        return ids, mask
    return model, inputs


class Cumsum(torch.nn.Module):
    def forward(self, counts, values):
        return torch.cumsum(counts, dim=1), torch.cumsum(values, dim=-1)


def cumsum():
    def inputs(batch, generator):
        return (torch.randint(-5, 6, (batch, 7, 3), generator=generator),
                torch.randn(batch, 3, 9, generator=generator))
    return Cumsum(), inputs


MODELS = [("bert", bert), ("gpt2", gpt2), ("llama", llama),
          ("llama-masked", llama_masked), ("cumsum", cumsum)]


def rel_l2(value, reference):
    value = np.asarray(value, dtype=np.float64)
    reference = np.asarray(reference, dtype=np.float64)
    return float(np.linalg.norm(value - reference) /
                 np.linalg.norm(reference))


def main():
    names = sys.argv[1:] or [name for name, _ in MODELS]
    checks, failed = 0, False
    for name, factory in MODELS:
        if name not in names:
            continue
        torch.manual_seed(0)
        model, make_inputs = factory()
        model.eval()
        non_persistent = sorted(
            f"{prefix}.{buffer}" if prefix else buffer
            for prefix, module in model.named_modules()
            for buffer in module._non_persistent_buffers_set)
        print(f"{name}: non-persistent buffers: "
              f"{', '.join(non_persistent) or 'none'}")
        example = make_inputs(2, torch.Generator().manual_seed(2))
        text = amp_mlir.from_torch(model, *example, dynamic_dims=0)
        function = amp_mlir.compile(text, level="O0").main
        for batch in (2, 3):
            inputs = make_inputs(batch, torch.Generator().manual_seed(batch))
            with torch.no_grad():
                expected = torch.utils._pytree.tree_leaves(model(*inputs))
            results = function(*[x.numpy() for x in inputs])
            if not isinstance(results, tuple):
                results = (results,)
            if len(results) != len(expected):
                print(f"{name} batch {batch}: {len(results)} outputs, "
                      f"PyTorch has {len(expected)} FAIL")
                failed = True
                continue
            for index, (result, reference) in enumerate(zip(results,
                                                            expected)):
                reference = reference.numpy()
                checks += 1
                same_shape = result.shape == reference.shape
                error = rel_l2(result, reference) if same_shape else \
                    float("inf")
                ok = same_shape and error <= TOLERANCE
                failed |= not ok
                print(f"{name} batch {batch} output {index} "
                      f"{'x'.join(map(str, result.shape))} {result.dtype}: "
                      f"rel L2 {error:.2e} <= {TOLERANCE:.0e} "
                      f"{'ok' if ok else 'FAIL'}")
    if failed:
        print("real models: FAILED")
        return 1
    print(f"real models: {checks} checks, all within tolerance")
    return 0


if __name__ == "__main__":
    sys.exit(main())
