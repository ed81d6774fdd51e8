#!/usr/bin/env python3
"""limits_idle.py - the job mix and the replay of tests/bench/slurm-limits.sh.

  limits_idle.py mix --seed S --jobs N --scale X --profiles P.csv > mix.csv
      The batch, generated from the seed (same seed, same batch): one row per
      job, in submission order.  See CLASSES below.
  limits_idle.py sim-args
      The omru-sim options that describe the site (nodes' CPUs and memory,
      nobody's GPU limit, the license).
  limits_idle.py replay --mix mix.csv --sacct S --alloc A --sched omru|backfill
                        [--profiles P.csv] [--trace FILE]
      What one run did (sacct with SLURM_TIME_FORMAT=%s; A: `scontrol -d -o
      show job` lines of running jobs, polled during the run): key=value
      lines (mean JCT, GPU utilisation, idle GPU-seconds while a pending job
      could have started, ...), then '#' lines naming the jobs that waited
      longest while they could have started; --trace FILE: each interval;
      --profiles P.csv (the run's, time-scaled): also idle_gain_gpu_s.
  limits_idle.py workload --mix mix.csv (--sacct S | --gap G) --sched omru|backfill
      The omru-sim workload of that run's real submission times (--gap: one
      job every G seconds, as the bench submits them, without a run) with the
      site's limits as its columns (doc/sim-formats.md, Site limits): node
      lists (reservation jobs n4, the others n1-n3, 'fa|fb' n1-n2), CPUs
      and memory, --exclusive, the license and each job's user; run it with
      `omru-sim --cluster 4x4` and limits_idle.py's SIM_ARGS.  omru:
      moldable jobs' range (counts that fit their time limit), backfill: the
      user's own count.

The cluster (scripts/cluster/start.sh's defaults plus what slurm-limits.sh
sets up; keep them in step): nodes n1..n4, 4 GPUs, 16 CPUs and 16,000 MB
each, DefMemPerCPU=1000; features n1=fa, n2=fb; reservation rn on n4 for
root, the whole run; QOS capped MaxTRESPerUser=gres/gpu=4 (every job of
nobody); license lic:1.

The replay's idle GPU-seconds while a pending job could have started
(idle_wait_gpu_s) and its looser bound (idle_any_gpu_s) are defined in
slurm-limits.sh's header.
"""
import argparse
import csv
import math
import random
import re
import sys

NODES = ['n1', 'n2', 'n3', 'n4']
GPUS, CPUS, MEM = 4, 16, 16000
MEM_PER_CPU = 1000
FEATURES = {'n1': {'fa'}, 'n2': {'fb'}, 'n3': set(), 'n4': set()}
RES_NODES = ['n4']            # reservation rn, for root
QOS_CAP = 4                   # QOS capped: MaxTRESPerUser=gres/gpu=4
LICENSES = 1                  # Licenses=lic:1
CORRECTION_MARGIN = 0.25      # omru.conf default: counts must fit limit / 1.25
MEM_JOB_MB = 9000             # --mem of the memory-heavy jobs
CPUS_PER_GPU_JOB = 8          # --cpus-per-gpu of the CPU-hungry jobs

# The classes of the batch, as shares of N jobs (24: 5 5 3 3 2 2 1 and 3
# plain): what user, options and GPU counts each has.
CLASSES = [
    # name, share of 24 (None: fixed count), fixed count
    ('res', 5, None),    # root, --reservation=rn (n4 only)
    ('qos', 5, None),    # nobody, --qos=capped (4 GPUs at once)
    ('mem', 3, None),    # --mem=9000: two cannot share a 16,000 MB node
    ('cpu', 3, None),    # --cpus-per-gpu=8 on 16-CPU nodes
    ('cons', 2, None),   # --constraint='fa|fb' (n1, n2)
    ('lic', None, 2),    # -L lic:1, one license
    ('excl', None, 1),   # --exclusive
]
FIELDS = ['name', 'user', 'cls', 'model', 'epochs', 'gpus', 'gmin', 'gmax',
          'moldable', 'cmin_ok', 'limit_min', 'mem', 'cpg', 'excl', 'lic',
          'constraint', 'reservation', 'qos', 'runtime_s']


def read_profiles(path):
    """(model, gpus) -> packed epoch seconds (rows on the fewest nodes)."""
    prof = {}
    with open(path) as f:
        rows = csv.DictReader(l for l in f if not l.startswith('#'))
        for r in rows:
            g = int(r['gpus'])
            k = int(r['nodes']) if r.get('nodes') else math.ceil(g / GPUS)
            if k == math.ceil(g / GPUS):
                prof[(r['model'], g)] = float(r['epoch_s'])
    return prof


def cmd_mix(a):
    rng = random.Random(a.seed)
    prof = read_profiles(a.profiles)  # already time-scaled (wall seconds)
    models = sorted({m for m, _ in prof})
    n = a.jobs
    classes = []
    for name, share, fixed in CLASSES:
        k = fixed if fixed is not None else max(1, round(n * share / 24))
        classes += [name] * k
    if len(classes) >= n:
        sys.exit('mix: %d jobs are too few for every class (need > %d)'
                 % (n, len(classes)))
    classes += ['plain'] * (n - len(classes))
    rng.shuffle(classes)
    lo, hi = (float(x) for x in a.work.split('-'))
    w = csv.DictWriter(sys.stdout, FIELDS, lineterminator='\n')
    w.writeheader()
    for i, cls in enumerate(classes):
        model = rng.choice(models)
        # The work: seconds on one GPU, log-uniform in the profiled range.
        work1 = math.exp(rng.uniform(math.log(lo), math.log(hi))) * a.scale
        epochs = round(work1 / prof[(model, 1)], 3)
        if cls == 'cpu':
            g = rng.choice([1, 2])
        elif cls == 'excl':
            g = rng.choice([2, 4])
        else:
            g = rng.choices([1, 2, 4], weights=[25, 40, 35])[0]
        user = 'root'
        if cls == 'qos' or (cls in ('mem', 'cpu', 'lic', 'cons', 'plain')
                            and rng.random() < 0.25):
            user = 'nobody'
        moldable = cls == 'plain' or (cls != 'excl' and rng.random() < 0.5)
        gmin, gmax = (1, 4) if moldable else (g, g)
        runtime = epochs * prof[(model, g)]
        # The user's time limit: 2.5 x the packed runtime at their count
        # (a 4-GPU job cons_tres spreads over 4 nodes runs 1.3^3 = 2.2 x
        # longer), plus 30 s, in whole minutes.
        limit = math.ceil((2.5 * runtime + 30) / 60)
        ok = [c for c in range(gmin, gmax + 1)
              if epochs * prof[(model, c)] * (1 + CORRECTION_MARGIN) <= limit * 60]
        cmin = min(ok) if ok else g
        w.writerow({
            'name': 'L%02d-%s' % (i, cls), 'user': user, 'cls': cls,
            'model': model, 'epochs': '%.3f' % epochs, 'gpus': g,
            'gmin': gmin, 'gmax': gmax, 'moldable': int(moldable),
            'cmin_ok': cmin, 'limit_min': limit,
            'mem': MEM_JOB_MB if cls == 'mem' else 0,
            'cpg': CPUS_PER_GPU_JOB if cls == 'cpu' else 0,
            'excl': int(cls == 'excl'), 'lic': int(cls == 'lic'),
            'constraint': 'fa|fb' if cls == 'cons' else '',
            'reservation': 'rn' if cls == 'res' else '',
            'qos': 'capped' if user == 'nobody' else '',
            'runtime_s': '%.1f' % runtime})


def read_mix(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def expand_hostlist(s):
    """n[1-2,4],n7 -> [n1, n2, n4, n7]."""
    out = []
    for part in re.findall(r'[^,\[]+(?:\[[^\]]*\])?', s):
        m = re.match(r'^([^\[]*)\[([^\]]*)\]$', part)
        if not m:
            out.append(part)
            continue
        for r in m.group(2).split(','):
            if '-' in r:
                x, y = r.split('-')
                out += ['%s%0*d' % (m.group(1), len(x), i)
                        for i in range(int(x), int(y) + 1)]
            else:
                out.append(m.group(1) + r)
    return out


def count_ids(s):
    n = 0
    for r in s.split(','):
        if not r:
            continue
        if '-' in r:
            x, y = r.split('-')
            n += int(y) - int(x) + 1
        else:
            n += 1
    return n


def read_alloc(path):
    """JobId -> {node: (gpus, cpus, mem)} from `scontrol -d -o show job`."""
    alloc = {}
    try:
        f = open(path)
    except OSError:
        return alloc
    with f:
        for line in f:
            m = re.match(r'JobId=(\d+) ', line)
            if not m or m.group(1) in alloc:
                continue
            per = {}
            for nodes, cpus, mem, gres in re.findall(
                    r' Nodes=(\S+) CPU_IDs=(\S+) Mem=(\d+) GRES=(\S*)', line):
                g = sum(int(x) for x in re.findall(r'gpu(?::[^:(,]+)?:(\d+)', gres))
                for node in expand_hostlist(nodes):
                    per[node] = (g, count_ids(cpus), int(mem))
            if per:
                alloc[m.group(1)] = per
    return alloc


def read_sacct(path):
    """JobName -> dict (id, submit, start, end, state, gpus, nodes)."""
    jobs = {}
    with open(path) as f:
        for line in f:
            p = line.rstrip('\n').split('|')
            if len(p) < 8:
                continue
            jid, name, submit, start, end, state, tres, nodes = p[:8]

            def t(x):
                return int(x) if x.isdigit() else None
            g = re.search(r'gres/gpu=(\d+)', tres)
            jobs[name] = {'id': jid, 'submit': t(submit), 'start': t(start),
                          'end': t(end), 'state': state.split()[0],
                          'gpus': int(g.group(1)) if g else 0,
                          'cpus': int((re.search(r'cpu=(\d+)', tres) or [0, 0])[1]),
                          'mem': int((re.search(r'mem=(\d+)M', tres) or [0, 0])[1]),
                          'nodes': expand_hostlist(nodes) if nodes and nodes != 'None assigned' else []}
    return jobs


class Job:
    def __init__(self, row, acct, alloc, sched):
        self.name = row['name']
        self.user = row['user']
        self.excl = row['excl'] == '1'
        self.lic = row['lic'] == '1'
        self.mem = int(row['mem'])
        self.cpg = int(row['cpg'])
        self.sched = sched
        g = int(row['gpus'])
        if sched == 'omru' and row['moldable'] == '1':
            self.counts = list(range(int(row['cmin_ok']), int(row['gmax']) + 1))
        else:
            self.counts = [g]
        if row['reservation']:
            self.nodes = list(RES_NODES)
        else:
            self.nodes = [n for n in NODES if n not in RES_NODES]
        if row['constraint']:
            want = set(row['constraint'].split('|'))
            self.nodes = [n for n in self.nodes if FEATURES[n] & want]
        self.model, self.epochs = row['model'], float(row['epochs'])
        self.submit, self.start, self.end = acct['submit'], acct['start'], acct['end']
        self.state = acct['state']
        self.gpus = acct['gpus']
        # What it held on each node while it ran.
        self.held = alloc.get(acct['id'])
        if self.held is None and acct['nodes']:
            k = len(acct['nodes'])
            self.held = {}
            left = self.gpus
            for i, node in enumerate(acct['nodes']):
                gi = left // (k - i)
                left -= gi
                self.held[node] = (gi, max(1, acct['cpus'] // k),
                                   acct['mem'] // k if self.mem == 0 else self.mem)
        if self.held is None:
            self.held = {}

    def cpus_on(self, g):
        if self.cpg:
            return self.cpg * g
        return g if self.sched == 'omru' else 1

    def mem_on(self, g):
        return self.mem if self.mem else MEM_PER_CPU * self.cpus_on(g)

    def capacity(self, st, node):
        """GPUs this job could take on NODE in state ST."""
        free = st['gpu'][node]
        if self.excl:
            return free if not st['busy'][node] else 0
        best = 0
        for g in range(1, free + 1):
            if self.cpus_on(g) <= st['cpu'][node] and self.mem_on(g) <= st['mem'][node]:
                best = g
        return best

    def fit(self, st, now=None, prof=None):
        """(count, {node: gpus}) of the largest start possible in ST, or None.
        With NOW and PROF (profiles): only counts whose packed runtime from
        NOW ends the job sooner than it really ended (a start it gained by)."""
        if self.lic and st['lic'] >= LICENSES:
            return None
        counts = self.counts
        if prof is not None and self.end is not None:
            counts = [c for c in counts
                      if now + self.epochs * prof.get((self.model, c), math.inf) < self.end]
        if self.user == 'nobody':
            counts = [c for c in counts if st['capped'] + c <= QOS_CAP]
        caps = {n: self.capacity(st, n) for n in self.nodes}
        total = sum(caps.values())
        ok = [c for c in counts if c <= total]
        if not ok:
            return None
        c = max(ok)
        place, left = {}, c
        for n in sorted(caps, key=lambda n: (-caps[n], n)):
            if left == 0:
                break
            take = min(caps[n], left)
            if take:
                place[n] = take
                left -= take
        return c, place

    def take(self, st, place):
        for n, g in place.items():
            st['gpu'][n] -= g
            if self.excl:
                st['cpu'][n] = 0
                st['mem'][n] = 0
            else:
                st['cpu'][n] -= self.cpus_on(g)
                st['mem'][n] -= self.mem_on(g)
            st['busy'][n] = True
        if self.user == 'nobody':
            st['capped'] += sum(place.values())
        if self.lic:
            st['lic'] += 1


def state_of(running):
    st = {'gpu': {n: GPUS for n in NODES}, 'cpu': {n: CPUS for n in NODES},
          'mem': {n: MEM for n in NODES}, 'busy': {n: False for n in NODES},
          'capped': 0, 'lic': 0}
    for j in running:
        for n, (g, c, m) in j.held.items():
            st['gpu'][n] -= g
            st['cpu'][n] -= CPUS if j.excl else c
            st['mem'][n] -= MEM if j.excl else m
            st['busy'][n] = True
        if j.user == 'nobody':
            st['capped'] += j.gpus
        if j.lic:
            st['lic'] += 1
    for n in NODES:
        st['gpu'][n] = max(0, st['gpu'][n])
        st['cpu'][n] = max(0, st['cpu'][n])
        st['mem'][n] = max(0, st['mem'][n])
    return st


def copy_state(st):
    return {k: (dict(v) if isinstance(v, dict) else v) for k, v in st.items()}


def load(a):
    mix = read_mix(a.mix)
    acct = read_sacct(a.sacct)
    alloc = read_alloc(a.alloc) if getattr(a, 'alloc', None) else {}
    jobs = []
    for row in mix:
        if row['name'] not in acct:
            sys.exit('replay: job %s is not in %s' % (row['name'], a.sacct))
        jobs.append(Job(row, acct[row['name']], alloc, a.sched))
    return jobs


def cmd_replay(a):
    jobs = load(a)
    t0 = min(j.submit for j in jobs)
    t1 = max(j.end for j in jobs if j.end is not None)
    times = sorted({t for j in jobs for t in (j.submit, j.start, j.end)
                    if t is not None and t0 <= t <= t1})
    idle_wait = idle_any = idle_gain = 0.0
    prof = read_profiles(a.profiles) if a.profiles else None
    trace = open(a.trace, 'w') if a.trace else None
    startable = {j.name: 0 for j in jobs}
    for a_, b_ in zip(times, times[1:]):
        dt = b_ - a_
        running = [j for j in jobs if j.start is not None and j.start <= a_ < j.end]
        pending = [j for j in jobs if j.submit <= a_ and
                   (j.start is None and a_ < j.end or j.start is not None and a_ < j.start)]
        if not pending:
            continue
        st = state_of(running)
        usable = set()
        for j in pending:
            f = j.fit(st)
            if f:
                startable[j.name] += dt
                usable |= {n for n in j.nodes if j.capacity(st, n) > 0}
        idle_any += dt * sum(st['gpu'][n] for n in usable)
        # Pending jobs started on paper, in submission order: every start,
        # then (with profiles) only those the job would have gained by.
        def paper_starts(*gain_args):
            paper = copy_state(st)
            starts = []
            for j in sorted(pending, key=lambda j: (j.submit, int(jobs.index(j)))):
                f = j.fit(paper, *gain_args)
                if f:
                    j.take(paper, f[1])
                    starts.append((j, f))
            return starts
        if prof is not None:
            idle_gain += dt * sum(f[0] for _, f in paper_starts(a_, prof))
        started = []
        for j, f in paper_starts():
            idle_wait += dt * f[0]
            started.append('%s:%d@%s' % (j.name, f[0], '+'.join(sorted(f[1]))))
        if trace:
            trace.write('%4d +%-3d free %s capped=%d lic=%d pending %s -> %s\n' % (
                a_ - t0, dt, ' '.join('%s:%dg/%dc/%dm' % (n, st['gpu'][n], st['cpu'][n], st['mem'][n])
                                      for n in NODES), st['capped'], st['lic'],
                ','.join(j.name for j in pending), ' '.join(started) or '-'))
    busy = sum(j.gpus * (j.end - j.start) for j in jobs
               if j.start is not None and j.end is not None)
    span = t1 - t0
    jct = [j.end - j.submit for j in jobs if j.end is not None]
    wait = [(j.start if j.start is not None else j.end) - j.submit for j in jobs]
    out = {
        'jobs': len(jobs),
        'span_s': span,
        'jct_mean_s': '%.1f' % (sum(jct) / len(jct)),
        'wait_mean_s': '%.1f' % (sum(wait) / len(wait)),
        'busy_gpu_s': busy,
        'util': '%.3f' % (busy / (len(NODES) * GPUS * span) if span else 0),
        'idle_wait_gpu_s': '%.0f' % idle_wait,
        'idle_any_gpu_s': '%.0f' % idle_any,
        'idle_gain_gpu_s': '%.0f' % idle_gain if prof is not None else '-',
        'completed': sum(j.state == 'COMPLETED' for j in jobs),
        'timeout': sum(j.state == 'TIMEOUT' for j in jobs),
        'not_completed': sum(j.state != 'COMPLETED' for j in jobs),
        'never_started': sum(j.start is None for j in jobs),
        'polled': sum(1 for j in jobs if j.held and j.state == 'COMPLETED'),
    }
    for k, v in out.items():
        print('%s=%s' % (k, v))
    top = sorted(jobs, key=lambda j: -startable[j.name])[:6]
    for j in top:
        if startable[j.name] == 0:
            break
        print('# %-12s %-6s waited %4d s, %4d s of it startable; ran %s GPUs on %s (%s)'
              % (j.name, j.user, (j.start or j.end) - j.submit, startable[j.name],
                 j.gpus, ','.join('%s:%d' % (n, v[0]) for n, v in sorted(j.held.items())),
                 j.state))


# omru-sim's options for the site (keep in step with the constants above).
SIM_ARGS = ['--node-cpus', str(CPUS), '--node-mem-mb', str(MEM),
            '--user-gpus', 'nobody=%d' % QOS_CAP, '--licenses', 'lic=%d' % LICENSES]


def cmd_workload(a):
    mix = read_mix(a.mix)
    if a.sacct:
        acct = read_sacct(a.sacct)
        t0 = min(acct[r['name']]['submit'] for r in mix)
    else:
        acct = {r['name']: {'submit': i * a.gap} for i, r in enumerate(mix)}
        t0 = 0
    w = csv.writer(sys.stdout, lineterminator='\n')
    w.writerow(['job_id', 'submit_s', 'model', 'epochs', 'gpus', 'gpus_min', 'gpus_max',
                'user', 'node_list', 'cpus_per_gpu', 'mem_mb', 'mem_per_cpu_mb',
                'exclusive', 'license'])
    for r in mix:
        g = int(r['gpus'])
        if a.sched == 'omru' and r['moldable'] == '1':
            lo, hi = int(r['cmin_ok']), int(r['gmax'])
        else:
            lo, hi = g, g
        if r['reservation']:
            nodes = RES_NODES
        else:
            want = set(r['constraint'].split('|')) if r['constraint'] else None
            nodes = [n for n in NODES if n not in RES_NODES
                     and (want is None or FEATURES[n] & want)]
        mem = int(r['mem'])
        # A CPU per GPU (select/omru's CpusPerGpu=1; cons_tres gives one
        # per node, which binds no sooner on these nodes), DefMemPerCPU
        # for jobs without --mem.
        w.writerow([r['name'], '%g' % (acct[r['name']]['submit'] - t0), r['model'], r['epochs'],
                    min(max(g, lo), hi), lo, hi, r['user'],
                    ';'.join(str(NODES.index(n)) for n in nodes),
                    int(r['cpg']) or 1, mem or '', '' if mem else MEM_PER_CPU,
                    r['excl'], 'lic' if r['lic'] == '1' else ''])


def cmd_sim_args(a):
    print(' '.join(SIM_ARGS))


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest='cmd', required=True)
    m = sub.add_parser('mix')
    m.add_argument('--seed', type=int, required=True)
    m.add_argument('--jobs', type=int, required=True)
    m.add_argument('--scale', type=float, required=True,
                   help='wall s per profiled s (the profiles are already scaled)')
    m.add_argument('--profiles', required=True)
    m.add_argument('--work', default='4500-18000',
                   help='profiled seconds of one job on one GPU, LO-HI (log-uniform)')
    sub.add_parser('sim-args')
    r = sub.add_parser('replay')
    r.add_argument('--sacct', required=True)
    wl = sub.add_parser('workload')
    when = wl.add_mutually_exclusive_group(required=True)
    when.add_argument('--sacct')
    when.add_argument('--gap', type=float, help='seconds between submissions')
    for s in (r, wl):
        s.add_argument('--mix', required=True)
        s.add_argument('--sched', choices=['omru', 'backfill'], required=True)
    r.add_argument('--alloc')
    r.add_argument('--profiles', help='the run\'s profiles (time-scaled): '
                   'also idle_gain_gpu_s')
    r.add_argument('--trace', help='one line per interval with pending jobs: '
                   'seconds from the first submission, length, free GPUs/CPUs/MB '
                   'per node, pending jobs -> those started on paper')
    a = p.parse_args()
    {'mix': cmd_mix, 'replay': cmd_replay, 'workload': cmd_workload,
     'sim-args': cmd_sim_args}[a.cmd](a)


if __name__ == '__main__':
    main()
