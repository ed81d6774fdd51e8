"""omru_profile.py - in-job profiling for PyTorch (or any Python) trainers
under slurm-omru, the same measurement omru-train makes (omru-train(1),
profile mode): time steps after a warm-up, extrapolate one epoch, and write
the row spank_omru forwards to the planner.

Copy it next to your training script.  In the job, before training:

    import omru_profile
    if omru_profile.wanted():
        omru_profile.measure(lambda i: train_step(next(batches)),
                             steps_per_epoch=len(loader),
                             model=os.environ["OMRU_MODEL"])

spank_omru sets OMRU_PROFILE=on when the plan wants the job's model
profiled, OMRU_PROFILE_GPUS (the counts it wants) and OMRU_PROFILE_OUT
(where the rows go).  This helper measures the job's own world size (a
PyTorch job cannot easily run at other counts): one row
`model,gpus,epoch_s,nodes`, written by rank 0 only, appended after the
header.  Every rank must call measure(): a step is collective.
"""
import os
import socket
import time

HEADER = "model,gpus,epoch_s,nodes"


def wanted():
    """True when spank_omru asks this job to profile itself."""
    return os.environ.get("OMRU_PROFILE", "off") in ("on", "force", "1") and \
        bool(os.environ.get("OMRU_PROFILE_OUT"))


def _dist():
    try:
        import torch.distributed as dist
        if dist.is_available() and dist.is_initialized():
            return dist
    except ImportError:
        pass
    return None


def _max_over_ranks(value):
    dist = _dist()
    if dist is None:
        return value
    import torch
    t = torch.tensor([value], dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return float(t.item())


def _nodes():
    """Nodes the job's processes run on."""
    dist = _dist()
    if dist is None:
        return 1
    names = [None] * dist.get_world_size()
    dist.all_gather_object(names, socket.gethostname())
    return len(set(names))


def measure(step, steps_per_epoch, model, warmup=5, steps=20, min_s=2.0,
            max_epoch_share=0.25, out=None):
    """Times step(i) and writes one row; returns the epoch seconds.

    step: runs one training step (forward, backward, optimizer) given its
        index; collective across ranks.
    steps_per_epoch: steps one epoch takes at this world size.
    Fast steps are timed for at least min_s seconds, but never for more
    than max_epoch_share of an epoch; the count comes from the slowest
    rank's warm-up, so every rank runs the same number of steps.
    """
    if steps_per_epoch < 1:
        raise ValueError("steps_per_epoch must be >= 1")
    out = out or os.environ.get("OMRU_PROFILE_OUT")
    i = 0
    t = time.perf_counter()
    for _ in range(warmup):
        step(i)
        i += 1
    timed = steps
    if warmup > 0 and min_s > 0:
        warm = _max_over_ranks((time.perf_counter() - t) / warmup)
        if warm > 0:
            window = min(min_s, max_epoch_share * steps_per_epoch * warm)
            timed = int(min(max(steps, -(-window // warm)), 2000))
    t = time.perf_counter()
    for _ in range(timed):
        step(i)
        i += 1
    step_s = _max_over_ranks((time.perf_counter() - t) / timed)
    epoch_s = step_s * steps_per_epoch
    dist = _dist()
    world = dist.get_world_size() if dist else 1
    nodes = _nodes()
    if out and (dist is None or dist.get_rank() == 0):
        fresh = not os.path.exists(out) or os.path.getsize(out) == 0
        with open(out, "a") as f:
            if fresh:
                f.write(HEADER + "\n")
            f.write("%s,%d,%.4f,%d\n" % (model, world, epoch_s, nodes))
    return epoch_s
