#!/usr/bin/env python3
"""Generate two-user streams: one account's batch of long jobs at t=0 and
another account's short jobs arriving over the next hours (issue 43's case:
a light user behind a heavy user's batch).

Usage (from anywhere):
    python3 data/make_two_user_streams.py

Writes data/workloads/two-user-stream-{1,2}.csv.  Deterministic (seeded).
Epoch times come from data/profiles-t4.csv; the models and epoch counts are
the ones data/make_omru_batches.py uses, cut so that a heavy job runs for
hours on 4 GPUs and a light job for minutes on 1-2.
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))

# Heavy account: long jobs, asked 4 GPUs, moldable 1-16.
HEAVY = [("t4-bert", 4, 8), ("t4-imagenet", 4, 8), ("t4-yolov3", 4, 40),
         ("t4-deepspeech2", 4, 150)]
# Light account: short jobs, asked 1 or 2 GPUs, moldable 1-4.
LIGHT = [("t4-cifar10", 60, 240), ("t4-ncf", 60, 300), ("t4-deepspeech2", 5, 20),
         ("t4-yolov3", 2, 6)]


def stream(seed, heavy_jobs, light_jobs, mean_gap_s):
    rng = random.Random(seed)
    rows = []
    for i in range(heavy_jobs):
        model, gpus, epochs = HEAVY[i % len(HEAVY)]
        epochs = round(epochs * rng.uniform(0.6, 1.4), 3)
        rows.append((f"heavy-{i}", 0, model, epochs, gpus, 1, 16, "heavy"))
    t = 0.0
    for i in range(light_jobs):
        t += rng.expovariate(1.0 / mean_gap_s)
        model, lo, hi = LIGHT[rng.randrange(len(LIGHT))]
        epochs = round(rng.uniform(lo, hi), 3)
        gpus = rng.choice([1, 2])
        rows.append((f"light-{i}", round(t, 1), model, epochs, gpus, 1, 4, "light"))
    return rows


def main():
    for n, (seed, heavy, light, gap) in enumerate([(1, 24, 30, 600), (2, 24, 40, 400)], 1):
        path = os.path.join(HERE, "workloads", f"two-user-stream-{n}.csv")
        with open(path, "w") as f:
            f.write("job_id,submit_s,model,epochs,gpus,gpus_min,gpus_max,account\n")
            for r in stream(seed, heavy, light, gap):
                f.write(",".join(str(x) for x in r) + "\n")


if __name__ == "__main__":
    main()
