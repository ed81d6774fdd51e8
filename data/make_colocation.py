#!/usr/bin/env python3
"""Derive the co-location tables in data/colocation/ from Lucid's measurements.

Usage (from the repository root, or from anywhere):
    python3 data/make_colocation.py [PAIRS_CSV [SOLO_CSV]]

PAIRS_CSV defaults to ../shared/data/colocation/pairs.csv and SOLO_CSV to
../shared/data/colocation/solo.csv, both relative to the repository root.
They are the co-location and solo measurements of the Lucid artifact
(Q. Hu et al., "Lucid: A Non-intrusive, Scalable and Interpretable Scheduler
for Deep Learning Training Jobs", ASPLOS 2023;
https://github.com/S-Lab-System-Group/Lucid, S-Lab License 1.0, which allows
non-commercial use only): pairs.csv is the artifact's
simulation/data/colocate_info.csv without its pandas index column and
without the rows of PointNet and TD3; solo.csv is
simulation/analyzer/single_data.csv without those two models' rows. See
data/colocation/README.md.

Writes, next to this script, into colocation/:
  lucid-pairs.csv    model_a,model_b,slowdown_a,slowdown_b,samples
  lucid-signals.csv  model,gpu_util,mem_util,gmem_mb,samples
  t4-pairs.csv       the same, with the models of profiles-t4.csv that
  t4-signals.csv     Lucid measured renamed to the profile names
and prints a short summary (row counts, the t4 table of README.md).

Method:
- pairs.csv rows are two jobs on one GPU; speedN is job N's training rate
  next to the other job over its rate alone. A job's slowdown is 1/speedN
  (its epoch time next to the other job over its epoch time alone).
- One output row per unordered model pair, over every dataset, batch size
  and amp setting of the two models: model_a <= model_b (Python string
  order); slowdown_a is the mean over the pair's source rows of model_a's
  job's 1/speed, slowdown_b likewise; samples is the number of source rows.
  A pair of a model with itself has both slowdowns equal to the mean over
  both jobs of every row (2 x samples values). Means below 1 (a job measured
  faster next to a neighbour: noise) are kept; the reader clamps to 1.
- Signals: per model, the mean over its solo.csv rows of gpu_util (NVML
  GPU utilisation, %), gmem_util (written as mem_util: NVML memory-controller
  utilisation, %) and gmem (GPU memory used, MiB as nvidia-smi reports it,
  written as gmem_mb); samples is the number of rows.
- t4 files: the same computation with the models in T4_MAP (keyed by
  Lucid's model and dataset) under their t4-* names and every other model
  under its own, so the predictor is fitted on all of Lucid's pairs and
  prices the t4 models' unmeasured pairs from their signals; a pair is
  ordered by the names written. t4-deepspeech2 and t4-yolov3 have no Lucid
  counterpart and get no rows.
- Every value is printed with 3 decimals; rows are sorted by model names.

Python 3 standard library only; the output is a pure function of the two
input files (no randomness, no iteration over unordered containers). The
script re-reads every file it wrote and checks it.
"""

import csv
import hashlib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SRC_DIR = os.path.normpath(os.path.join(REPO, "..", "shared", "data",
                                        "colocation"))
OUT_DIR = os.path.join(HERE, "colocation")

PAIRS_HEADER = ["model1", "dataset1", "gpu_num1", "batchsize1", "amp1",
                "speed1", "model2", "dataset2", "gpu_num2", "batchsize2",
                "amp2", "speed2", "gpu_util", "gmem_util", "gmem"]
SOLO_HEADER = ["model", "dataset", "batchsize", "amp", "speed", "gpu_util",
               "gmem_util", "gmem", "label"]
OUT_PAIRS_HEADER = ["model_a", "model_b", "slowdown_a", "slowdown_b",
                    "samples"]
OUT_SIGNALS_HEADER = ["model", "gpu_util", "mem_util", "gmem_mb", "samples"]

# SHA-256 of the inputs the files in colocation/ were made from (README.md).
EXPECTED_SHA256 = {
    "pairs": "51f3cdcf87287eddcf612a1ecd266f7fc58e007c7b867ec82ad4ef243bebcda4",
    "solo": "aff89da882db406705169ab8258805e862d093ab0f36cdb8484a5a42012493af",
}

# (Lucid model, Lucid dataset) -> profile name in profiles-t4.csv. The
# profiles (PROVENANCE.md): t4-bert = BERT (bert-base-uncased) fine-tuned on
# SQuAD v1.1, t4-cifar10 = ResNet-18 on CIFAR-10, t4-imagenet = ResNet-50 on
# ImageNet-1k, t4-ncf = NeuMF on MovieLens-1M. Lucid runs the same models on
# the same data sets (its BERT job: bert-base-uncased on SQuAD train-v1.1;
# NeuMF: ml-1m; ResNet50: torchvision resnet50 on synthetic 224x224 ImageNet
# batches). t4-deepspeech2 and t4-yolov3: no Lucid counterpart.
T4_MAP = {
    ("BERT", "SQuAD"): "t4-bert",
    ("ResNet18", "CIFAR-10"): "t4-cifar10",
    ("ResNet50", "ImageNet"): "t4-imagenet",
    ("NeuMF", "MovieLens"): "t4-ncf",
}
T4_PROFILES = ["t4-bert", "t4-cifar10", "t4-deepspeech2", "t4-imagenet",
               "t4-ncf", "t4-yolov3"]

MODEL_NAME = re.compile(r"^[A-Za-z0-9._+-]+$")  # profile_table's rule


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def read_csv(path, header):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows or rows[0] != header:
        sys.exit(f"{path}: header is not {','.join(header)}")
    out = []
    for i, r in enumerate(rows[1:], start=2):
        if len(r) != len(header):
            sys.exit(f"{path}:{i}: {len(r)} fields, expected {len(header)}")
        out.append(dict(zip(header, r)))
    return out


def num(path, row, key):
    try:
        v = float(row[key])
    except ValueError:
        sys.exit(f"{path}: {key} '{row[key]}' is not a number")
    if not v == v or v < 0:
        sys.exit(f"{path}: {key} '{row[key]}' is not a non-negative number")
    return v


def fmt(v):
    s = f"{v:.3f}"
    return "0.000" if s == "-0.000" else s


def aggregate_pairs(pairs_path, rows, name):
    """name(model, dataset) -> output name or None (row dropped)."""
    acc = {}  # (a, b) -> [sum slowdown_a, n_a, sum slowdown_b, n_b, rows]
    for r in rows:
        n1 = name(r["model1"], r["dataset1"])
        n2 = name(r["model2"], r["dataset2"])
        if n1 is None or n2 is None:
            continue
        s1, s2 = num(pairs_path, r, "speed1"), num(pairs_path, r, "speed2")
        if s1 <= 0 or s2 <= 0:
            sys.exit(f"{pairs_path}: speed of 0 in {r}")
        d1, d2 = 1.0 / s1, 1.0 / s2
        if n1 <= n2:
            a, b, da, db = n1, n2, d1, d2
        else:
            a, b, da, db = n2, n1, d2, d1
        e = acc.setdefault((a, b), [0.0, 0, 0.0, 0, 0])
        if a == b:
            # One model met itself: both jobs are samples of both columns.
            e[0] += da + db
            e[1] += 2
            e[2] += da + db
            e[3] += 2
        else:
            e[0] += da
            e[1] += 1
            e[2] += db
            e[3] += 1
        e[4] += 1
    out = []
    for (a, b) in sorted(acc):
        sa, na, sb, nb, n = acc[(a, b)]
        out.append([a, b, fmt(sa / na), fmt(sb / nb), str(n)])
    return out


def aggregate_signals(solo_path, rows, name):
    acc = {}  # model -> [sum gpu_util, sum gmem_util, sum gmem, rows]
    for r in rows:
        n = name(r["model"], r["dataset"])
        if n is None:
            continue
        e = acc.setdefault(n, [0.0, 0.0, 0.0, 0])
        e[0] += num(solo_path, r, "gpu_util")
        e[1] += num(solo_path, r, "gmem_util")
        e[2] += num(solo_path, r, "gmem")
        e[3] += 1
    out = []
    for m in sorted(acc):
        g, mu, gm, n = acc[m]
        out.append([m, fmt(g / n), fmt(mu / n), fmt(gm / n), str(n)])
    return out


def write_csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def check_pairs(path, expected_rows):
    rows = read_csv(path, OUT_PAIRS_HEADER)
    seen = set()
    for r in rows:
        a, b = r["model_a"], r["model_b"]
        assert MODEL_NAME.match(a) and MODEL_NAME.match(b), r
        assert a <= b, r
        assert (a, b) not in seen, r
        seen.add((a, b))
        for k in ("slowdown_a", "slowdown_b"):
            assert 0 < float(r[k]) <= 100, r
        assert int(r["samples"]) > 0, r
        if a == b:
            assert r["slowdown_a"] == r["slowdown_b"], r
    keys = [(r["model_a"], r["model_b"]) for r in rows]
    assert keys == sorted(keys), path
    assert len(rows) == expected_rows, path


def check_signals(path, expected_rows):
    rows = read_csv(path, OUT_SIGNALS_HEADER)
    models = [r["model"] for r in rows]
    assert models == sorted(set(models)), path
    for r in rows:
        assert MODEL_NAME.match(r["model"]), r
        for k in ("gpu_util", "mem_util"):
            assert 0 <= float(r[k]) <= 100, r
        assert float(r["gmem_mb"]) > 0 and int(r["samples"]) > 0, r
    assert len(rows) == expected_rows, path


def main(argv):
    if len(argv) > 3:
        sys.exit(__doc__)
    pairs_path = argv[1] if len(argv) > 1 else os.path.join(SRC_DIR,
                                                            "pairs.csv")
    solo_path = argv[2] if len(argv) > 2 else os.path.join(SRC_DIR,
                                                           "solo.csv")
    for key, path in (("pairs", pairs_path), ("solo", solo_path)):
        h = sha256(path)
        note = "" if h == EXPECTED_SHA256[key] else \
            "  (differs from the input recorded in colocation/README.md)"
        print(f"{key}: {path}\n  sha256 {h}{note}")

    pairs = read_csv(pairs_path, PAIRS_HEADER)
    solo = read_csv(solo_path, SOLO_HEADER)

    # Each Lucid model is measured on one data set; say so if that changes,
    # since the lucid-* files are keyed by model name only.
    datasets = {}
    for r in pairs:
        for i in ("1", "2"):
            datasets.setdefault(r["model" + i], set()).add(r["dataset" + i])
    for r in solo:
        datasets.setdefault(r["model"], set()).add(r["dataset"])
    for m in sorted(datasets):
        if not MODEL_NAME.match(m):
            sys.exit(f"'{m}' is not a model name")
        if len(datasets[m]) > 1:
            print(f"note: {m} is measured on {sorted(datasets[m])}; "
                  "lucid-* files pool them")

    def lucid_name(model, dataset):
        return model

    def t4_name(model, dataset):
        return T4_MAP.get((model, dataset), model)

    os.makedirs(OUT_DIR, exist_ok=True)
    outputs = [
        ("lucid-pairs.csv", OUT_PAIRS_HEADER,
         aggregate_pairs(pairs_path, pairs, lucid_name), check_pairs),
        ("lucid-signals.csv", OUT_SIGNALS_HEADER,
         aggregate_signals(solo_path, solo, lucid_name), check_signals),
        ("t4-pairs.csv", OUT_PAIRS_HEADER,
         aggregate_pairs(pairs_path, pairs, t4_name), check_pairs),
        ("t4-signals.csv", OUT_SIGNALS_HEADER,
         aggregate_signals(solo_path, solo, t4_name), check_signals),
    ]
    for fname, header, rows, check in outputs:
        path = os.path.join(OUT_DIR, fname)
        write_csv(path, header, rows)
        check(path, len(rows))
        print(f"wrote {os.path.relpath(path, REPO)}: {len(rows)} rows")

    t4_pairs = outputs[2][2]
    t4_signals = outputs[3][2]
    print("\n| model_a | model_b | slowdown_a | slowdown_b | samples |")
    print("|---|---|---|---|---|")
    for r in t4_pairs:
        if not (r[0].startswith("t4-") or r[1].startswith("t4-")):
            continue
        print("| " + " | ".join(r) + " |")
    print("\n| model | gpu_util | mem_util | gmem_mb | samples |")
    print("|---|---|---|---|---|")
    for r in t4_signals:
        if not r[0].startswith("t4-"):
            continue
        print("| " + " | ".join(r) + " |")
    in_pairs = {r[0] for r in t4_pairs} | {r[1] for r in t4_pairs}
    in_signals = {r[0] for r in t4_signals}
    print("\nt4 profiles in no t4-pairs row: " +
          ", ".join(m for m in T4_PROFILES if m not in in_pairs))
    print("t4 profiles in no t4-signals row: " +
          ", ".join(m for m in T4_PROFILES if m not in in_signals))


if __name__ == "__main__":
    main(sys.argv)
