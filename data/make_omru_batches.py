#!/usr/bin/env python3
"""Generate OMRU-style offline batches from the T4 epoch-time profiles.

Usage (from the repository root, or from anywhere):
    python3 data/make_omru_batches.py

Reads  data/profiles-t4.csv (per-epoch times of six models on 1..16 T4 GPUs,
       derived from the Pollux/AdaptDL OSDI'21 artifact traces; see
       PROVENANCE.md)
Writes data/workloads/omru-batch-{16,24,48,64}-1.csv and prints a Markdown
       summary of them (used in PROVENANCE.md).

An OMRU-style batch is a set of training jobs all submitted at time 0, each a
known model trained for a fixed number of epochs and moldable over 1..16 GPUs
(OMRU profiles every job's epoch time on 1..N GPUs and plans the makespan).
Unlike batch-32-*.csv, whose job lengths come from Philly durations, the job
lengths here are conventional training lengths of the six models:

1. Each file has a model mix (weights per model). The job count of each model
   is apportioned from the weights by largest remainder (ties: model order
   below); the resulting list of models is shuffled with random.Random(seed).
2. Each job draws an integer epoch count uniformly from its model's range in
   EPOCH_RANGES (rng.randint, in job order, after the shuffle).
3. No job may dominate the batch: with T_j = epochs_j x epoch_s(model, 1 GPU)
   (the job's length on one GPU) and A = sum of T_j (the batch's 1-GPU work),
   every job must satisfy
       T_j <= DOMINANCE x A / SMALLEST_CLUSTER_GPUS   (= 2 x A / 16 on 4x4),
   i.e. on the smallest cluster the benchmarks use (4x4), no job run on one
   GPU is longer than twice the area bound. Where the drawn epochs break this,
   the epochs of every job of an offending model are multiplied by one factor
   s_m = MARGIN x L / M_m, where M_m is the longest T_j of model m and L is the
   largest L > 0 solving
       L = (DOMINANCE / SMALLEST_CLUSTER_GPUS) x sum_j T_j x min(1, L / M_m(j)),
   i.e. the cap is computed on the scaled batch's own area (a water-filling
   fixed point, solved exactly because the right side is piecewise linear in
   L). Models whose M_m <= L are left alone. MARGIN (0.99) keeps the rule true
   after rounding epochs to 3 decimals. Scaling a model by one factor keeps the
   relative spread of its jobs; a scaled job stands for that fraction of a
   full conventional run (e.g. fine-tuning from a checkpoint).
4. job_id = "<app>-<index>" (index 0.. in file order, as batch-32-*.csv);
   submit_s = 0, gpus = 1, gpus_min = 1, gpus_max = 16; epochs with 3
   decimals.

Python 3 standard library only; the output is a pure function of
profiles-t4.csv and the constants below (fixed integer seeds, no iteration
over unordered containers). The script re-reads every file it wrote and checks
it (header, unique ids, models and GPU counts present in the profiles, epochs
> 0, the dominance rule).
"""

import csv
import math
import os
import random
import sys

# ---------------------------------------------------------------- constants --

MODELS = ["t4-bert", "t4-cifar10", "t4-deepspeech2", "t4-imagenet", "t4-ncf",
          "t4-yolov3"]

# Integer epoch range (inclusive) per model, drawn uniformly per job.
# Reasons (Pollux = petuum/adaptdl osdi21-artifact, commit c793c70, the same
# artifact the profiles come from; its simulator/applications.py sets
# max_epochs bert 2, cifar10 100, ncf 10, imagenet 90, deepspeech2 80,
# yolov3 50, matching the row counts of its validation traces):
EPOCH_RANGES = {
    # BERT-base fine-tuning on SQuAD v1.1: Devlin et al. (NAACL 2019) fine-tune
    # SQuAD for 3 epochs and recommend 2, 3 or 4 epochs for fine-tuning
    # (Appendix A.3); Pollux's job runs --num_train_epochs=2.0 (run_squad.py's
    # default is 3.0).
    "t4-bert": (2, 4),
    # ResNet-18 on CIFAR-10: Pollux's main.py (from kuangliu/pytorch-cifar)
    # defaults to 100 epochs; He et al. (CVPR 2016) train CIFAR-10 ResNets for
    # 64k iterations of 128 (about 164-182 epochs); 200 epochs is the common
    # cosine-schedule recipe (kuangliu/pytorch-cifar today).
    "t4-cifar10": (100, 200),
    # DeepSpeech2 (deepspeech.pytorch fork) on Pollux's voxforge/CMU set:
    # Pollux trains 80 epochs (train.py --epochs default, adaptdljob.yaml);
    # the range allows runs stopped up to a quarter earlier.
    "t4-deepspeech2": (60, 80),
    # ResNet-50 on ImageNet-1k: 90 epochs (Goyal et al. 2017, "Accurate,
    # Large Minibatch SGD"; torchvision's reference recipe; Pollux's main.py);
    # He et al. (CVPR 2016) trained 60e4 iterations of 256, about 120 epochs.
    "t4-imagenet": (90, 120),
    # NCF (NeuMF) on MovieLens-1M: Pollux runs --epochs=10; the PyTorch
    # implementation it is taken from (guoyang9/NCF) reports results after
    # 20 epochs, replicating He et al. (WWW 2017).
    "t4-ncf": (10, 20),
    # YOLOv3 on PASCAL VOC 07+12: Pollux's config (from Peterisfar/YOLOV3)
    # trains 50 epochs with a cosine schedule; +-10 epochs around it.
    "t4-yolov3": (40, 60),
}

# Model mixes: relative weights of the six models.
MIXES = {
    # every model equally often
    "uniform": {"t4-bert": 1, "t4-cifar10": 1, "t4-deepspeech2": 1,
                "t4-imagenet": 1, "t4-ncf": 1, "t4-yolov3": 1},
    # mostly the short models (1-GPU runs of minutes to a few hours), no ImageNet
    "short": {"t4-bert": 1, "t4-cifar10": 3, "t4-deepspeech2": 2,
              "t4-imagenet": 0, "t4-ncf": 3, "t4-yolov3": 1},
    # the five shorter models equally often, plus a few ImageNet jobs (half
    # as often as each other model: 4 of 48)
    "few-long": {"t4-bert": 2, "t4-cifar10": 2, "t4-deepspeech2": 2,
                 "t4-imagenet": 1, "t4-ncf": 2, "t4-yolov3": 2},
}

# (file name, jobs, seed, mix)
BATCHES = [
    ("omru-batch-16-1.csv", 16, 1601, "uniform"),
    ("omru-batch-24-1.csv", 24, 2401, "short"),
    ("omru-batch-48-1.csv", 48, 4801, "few-long"),
    ("omru-batch-64-1.csv", 64, 6401, "uniform"),
]

SMALLEST_CLUSTER_GPUS = 16   # 4x4, the smallest cluster the batches are for
OTHER_CLUSTER_GPUS = 32      # 8x4, reported in the summary only
DOMINANCE = 2.0              # a 1-GPU job may last at most 2 x area / 16 GPUs
MARGIN = 0.99                # slack so the rule survives rounding to 3 decimals
GPUS_MAX = 16
HEADER = ["job_id", "submit_s", "model", "epochs", "gpus", "gpus_min",
          "gpus_max"]

HERE = os.path.dirname(os.path.abspath(__file__))
PROFILES = os.path.join(HERE, "profiles-t4.csv")
OUT_DIR = os.path.join(HERE, "workloads")


def die(msg):
    sys.exit("make_omru_batches.py: " + msg)


# ----------------------------------------------------------------- profiles --

def read_profiles(path):
    """{model: {gpus: epoch_s of the packed row (gpus, ceil(gpus/4))}}"""
    out = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            g, k = int(r["gpus"]), int(r["nodes"])
            if k == math.ceil(g / 4):
                out.setdefault(r["model"], {})[g] = float(r["epoch_s"])
    for m in MODELS:
        if m not in out:
            die("%s: no rows for %s" % (path, m))
        missing = [g for g in range(1, GPUS_MAX + 1) if g not in out[m]]
        if missing:
            die("%s: %s has no packed row for gpus %s" % (path, m, missing))
    return out


# ---------------------------------------------------------------- batches --

def apportion(n, weights):
    """Largest-remainder apportionment of n jobs over MODELS by weight."""
    total = sum(weights[m] for m in MODELS)
    quotas = [(n * weights[m] / total, i) for i, m in enumerate(MODELS)]
    counts = [int(math.floor(q)) for q, _ in quotas]
    left = n - sum(counts)
    order = sorted(range(len(MODELS)),
                   key=lambda i: (-(quotas[i][0] - counts[i]), i))
    for i in order[:left]:
        counts[i] += 1
    return dict(zip(MODELS, counts))


def dominance_cap(lengths):
    """lengths: list of (model, T_j). Returns (L, {model: M_m}) where L is the
    largest L > 0 with L = c * sum_j T_j * min(1, L / M_m(j)), c = DOMINANCE /
    SMALLEST_CLUSTER_GPUS."""
    c = DOMINANCE / SMALLEST_CLUSTER_GPUS
    longest = {}
    for m, t in lengths:
        longest[m] = max(longest.get(m, 0.0), t)
    # Models by their longest job, longest first (ties: model name).
    by_len = sorted(longest, key=lambda m: (-longest[m], m))
    for k in range(len(by_len) + 1):
        scaled = set(by_len[:k])
        u = sum(t for m, t in lengths if m not in scaled)
        v = sum(t / longest[m] for m, t in lengths if m in scaled)
        if c * v >= 1:
            continue
        cap = c * u / (1 - c * v)
        if all(longest[m] > cap for m in scaled) and \
           all(longest[m] <= cap for m in by_len[k:]):
            return cap, longest
    die("no dominance cap exists (too few jobs?)")


def make_batch(n, seed, mix, epoch_1gpu):
    rng = random.Random(seed)
    counts = apportion(n, MIXES[mix])
    models = [m for m in MODELS for _ in range(counts[m])]
    rng.shuffle(models)
    drawn = [rng.randint(*EPOCH_RANGES[m]) for m in models]
    lengths = [(m, e * epoch_1gpu[m][1]) for m, e in zip(models, drawn)]
    cap, longest = dominance_cap(lengths)
    scale = {m: (MARGIN * cap / longest[m] if longest[m] > cap else 1.0)
             for m in MODELS if m in longest}
    jobs = []
    for i, (m, e) in enumerate(zip(models, drawn)):
        jobs.append({"job_id": "%s-%d" % (m[len("t4-"):], i), "model": m,
                     "drawn": e, "epochs": "%.3f" % (e * scale[m])})
    return jobs, counts, scale, cap


def write_batch(path, jobs):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(HEADER)
        for j in jobs:
            w.writerow([j["job_id"], 0, j["model"], j["epochs"], 1, 1, GPUS_MAX])


def check_batch(path, epoch_1gpu):
    """Re-read a written file and check it; returns its 1-GPU lengths."""
    with open(path, newline="") as f:
        reader = csv.reader(f)
        if next(reader) != HEADER:
            die("%s: bad header" % path)
        ids, lengths = set(), []
        for r in reader:
            job_id, submit, model, epochs, g, gmin, gmax = r
            if job_id in ids:
                die("%s: duplicate job_id %s" % (path, job_id))
            ids.add(job_id)
            if model not in epoch_1gpu:
                die("%s: unknown model %s" % (path, model))
            if float(submit) != 0 or float(epochs) <= 0:
                die("%s: bad row %r" % (path, r))
            for x in (g, gmin, gmax):
                if int(x) not in epoch_1gpu[model]:
                    die("%s: %s has no profile at %s GPUs" % (path, model, x))
            lengths.append((job_id, model, float(epochs) * epoch_1gpu[model][1]))
    area = sum(t for _, _, t in lengths)
    limit = DOMINANCE * area / SMALLEST_CLUSTER_GPUS
    for job_id, _, t in lengths:
        if t > limit:
            die("%s: %s lasts %.0f s on 1 GPU > %.0f s" % (path, job_id, t, limit))
    return lengths


# ---------------------------------------------------------------- summary --

def summary(name, n, seed, mix, jobs, counts, scale, cap, lengths, epoch_1gpu):
    area = sum(t for _, _, t in lengths)
    longest_id, longest_model, longest_t = max(lengths, key=lambda x: (x[2], x[0]))
    print("### %s" % name)
    print()
    print("- %d jobs, seed %d, mix `%s`; 1-GPU work %.1f GPU-hours; longest job "
          "on 1 GPU %s, %.2f h (%.2f x area/16)"
          % (n, seed, mix, area / 3600, longest_id, longest_t / 3600,
             longest_t / (area / SMALLEST_CLUSTER_GPUS)))
    print("- area bound (1-GPU work / GPUs): %.2f h on 4x4, %.2f h on 8x4; "
          "dominance cap L = %.2f h"
          % (area / SMALLEST_CLUSTER_GPUS / 3600, area / OTHER_CLUSTER_GPUS / 3600,
             cap / 3600))
    print()
    print("| model | jobs | drawn epochs | scale | epochs written | 1-GPU h per job |")
    print("|---|---|---|---|---|---|")
    for m in MODELS:
        if counts[m] == 0:
            continue
        mine = [j for j in jobs if j["model"] == m]
        d = [j["drawn"] for j in mine]
        e = [float(j["epochs"]) for j in mine]
        print("| %s | %d | %d-%d | %s | %.3f-%.3f | %.2f-%.2f |"
              % (m, counts[m], min(d), max(d),
                 "1" if scale[m] == 1.0 else "%.4f" % scale[m],
                 min(e), max(e), min(e) * epoch_1gpu[m][1] / 3600,
                 max(e) * epoch_1gpu[m][1] / 3600))
    print()


def main():
    epoch_1gpu = read_profiles(PROFILES)
    os.makedirs(OUT_DIR, exist_ok=True)
    for name, n, seed, mix in BATCHES:
        jobs, counts, scale, cap = make_batch(n, seed, mix, epoch_1gpu)
        path = os.path.join(OUT_DIR, name)
        write_batch(path, jobs)
        lengths = check_batch(path, epoch_1gpu)
        summary(name, n, seed, mix, jobs, counts, scale, cap, lengths, epoch_1gpu)


if __name__ == "__main__":
    main()
