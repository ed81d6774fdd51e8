#!/usr/bin/python3
"""train_bench.py - the PyTorch baseline for omru-train's benchmark: the same
model (architectures mirrored from trainer/models.cpp), the same CIFAR-10
binary data, batch, augmentation and normalisation, the same number of torch
threads; prints the training samples/s over the timed steps after a warm-up.
Run with Debian's /usr/bin/python3 (python3-torch)."""
import argparse
import glob
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

MEAN = np.array([0.4914, 0.4822, 0.4465], dtype=np.float32).reshape(1, 3, 1, 1)
STD = np.array([0.2470, 0.2435, 0.2616], dtype=np.float32).reshape(1, 3, 1, 1)


def conv(i, o, k, s):
    return nn.Conv2d(i, o, k, stride=s, padding=k // 2, bias=False)


class Tiny(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.conv1, self.gn1 = conv(3, 16, 3, 2), nn.GroupNorm(4, 16)
        self.conv2, self.gn2 = conv(16, 32, 3, 1), nn.GroupNorm(4, 32)
        self.fc = nn.Linear(32 * 4 * 4, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.gn1(self.conv1(x))), 2)
        x = F.relu(self.gn2(self.conv2(x)))
        return self.fc(F.adaptive_avg_pool2d(x, (4, 4)).flatten(1))


class Basic(nn.Module):
    def __init__(self, i, p, s):
        super().__init__()
        self.conv1, self.bn1 = conv(i, p, 3, s), nn.BatchNorm2d(p)
        self.conv2, self.bn2 = conv(p, p, 3, 1), nn.BatchNorm2d(p)
        self.short = nn.Sequential()
        if s != 1 or i != p:
            self.short = nn.Sequential(nn.Conv2d(i, p, 1, stride=s, bias=False), nn.BatchNorm2d(p))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(out)) + self.short(x))


class ResNet18(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.conv1, self.bn1 = conv(3, 64, 3, 1), nn.BatchNorm2d(64)
        layers, i = [], 64
        for p, s in ((64, 1), (128, 2), (256, 2), (512, 2)):
            layers += [Basic(i, p, s), Basic(p, p, 1)]
            i = p
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = self.layers(F.relu(self.bn1(self.conv1(x))))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


def read_cifar(d):
    raw = b"".join(open(f, "rb").read() for f in sorted(glob.glob(os.path.join(d, "data_batch_*.bin"))))
    rec = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3073)
    return rec[:, 1:].reshape(-1, 3, 32, 32), rec[:, 0].astype(np.int64)


def batch(images, labels, idx, rng):
    x = images[idx].astype(np.float32) / 255.0
    x = (x - MEAN) / STD
    x = np.pad(x, ((0, 0), (0, 0), (4, 4), (4, 4)))
    out = np.empty((len(idx), 3, 32, 32), dtype=np.float32)
    for n in range(len(idx)):  # per-sample crop and flip, as the C++ loader
        dx, dy = rng.integers(0, 9, size=2)
        img = x[n, :, dy:dy + 32, dx:dx + 32]
        out[n] = img[:, :, ::-1] if rng.integers(0, 2) else img
    return torch.from_numpy(out), torch.from_numpy(labels[idx])


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--data", required=True)
    a.add_argument("--model", default="tiny", choices=["tiny", "resnet18"])
    a.add_argument("--batch-size", type=int, default=128)
    a.add_argument("--threads", type=int, default=1)
    a.add_argument("--steps", type=int, default=100)
    a.add_argument("--warmup", type=int, default=10)
    o = a.parse_args()
    torch.set_num_threads(o.threads)
    torch.manual_seed(1)
    images, labels = read_cifar(o.data)
    net = Tiny() if o.model == "tiny" else ResNet18()
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    rng = np.random.default_rng(1)
    perm = rng.permutation(len(labels))
    net.train()
    t0 = None
    for step in range(o.warmup + o.steps):
        if step == o.warmup:
            t0 = time.perf_counter()
        at = (step * o.batch_size) % (len(perm) - o.batch_size)
        x, y = batch(images, labels, perm[at:at + o.batch_size], rng)
        opt.zero_grad()
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
    print("%.2f" % (o.steps * o.batch_size / (time.perf_counter() - t0)))


if __name__ == "__main__":
    main()
