"""Exports the end-to-end benchmark's models to ONNX (bench/e2e/README.md), random weights, batch 1,
opset 17, with torch.onnx.export (Debian: python3-torch, python3-torchvision; no downloads):

  small_cnn    three layers (conv 3->16 + relu, conv 16->32 stride 2 + batch norm + relu, global
               average pool + linear 32->10) on 1x3x32x32: the model the harness runs end to end today
  resnet18     torchvision.models.resnet18(weights=None), 1x3x224x224
  resnet18_32  the same network on 1x3x32x32 (what the slow targets run: arm under qemu, cuda-interp)
  mobilenet_v2 torchvision.models.mobilenet_v2(weights=None), 1x3x224x224
  resnet50     torchvision.models.resnet50(weights=None), 1x3x224x224

Each MODEL.onnx comes with MODEL.x.npy (a seeded random input) in OUTDIR.
usage: export_models.py OUTDIR [MODEL...]   (default: every model)
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torchvision


class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, stride=2, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(32)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.bn2(self.conv2(x)))
        x = torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1)
        return self.fc(x)


MODELS = {
    "small_cnn": (SmallCnn, (1, 3, 32, 32)),
    "resnet18": (lambda: torchvision.models.resnet18(weights=None), (1, 3, 224, 224)),
    "resnet18_32": (lambda: torchvision.models.resnet18(weights=None), (1, 3, 32, 32)),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(weights=None), (1, 3, 224, 224)),
    "resnet50": (lambda: torchvision.models.resnet50(weights=None), (1, 3, 224, 224)),
}


def build(name):
    """The model `name` in eval mode with its seeded weights and batch-norm statistics, and its
    seeded input: the same on every call (torch_bench.py rebuilds the exported models with it)."""
    make, shape = MODELS[name]
    torch.manual_seed(0)
    model = make().eval()
    with torch.no_grad():  # batch norm statistics that are not the identity
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
    x = np.random.default_rng(1).uniform(-1, 1, size=shape).astype(np.float32)
    return model, x


def main(argv):
    out = argv[0]
    names = argv[1:] or list(MODELS)
    os.makedirs(out, exist_ok=True)
    for name in names:
        model, x = build(name)
        path = os.path.join(out, name + ".onnx")
        torch.onnx.export(model, torch.from_numpy(x), path, opset_version=17, input_names=["x"], output_names=["y"],
                          do_constant_folding=True)
        np.save(os.path.join(out, name + ".x.npy"), x)
        print("exported %s (%d parameters)" % (path, sum(p.numel() for p in model.parameters())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
