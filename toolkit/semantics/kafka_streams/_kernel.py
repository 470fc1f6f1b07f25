"""The compiled steps of the Kafka Streams fast path (numba): the record cache in front of a
``TimeWindows`` store and the on-close throttle. Imported lazily by ``time_windows``.

``cache_flushes`` replays ``record_cache.ThreadCache`` over the accepted (record, window) pairs
in processing order, with integer ids instead of Python objects: one entry per window (task,
key, start); each task's named cache is a doubly linked list in LRU order (= order of the latest
write) and a second list of its dirty entries in the same order. Put: the entry moves to the
tail of both lists; while the thread's bytes exceed ``max_bytes`` the head of the written
task's LRU list is evicted, and evicting a dirty entry forwards it, then the task's other dirty
entries in order. After each record, when ``arrival - last_commit > commit_interval``, every
task's dirty entries are forwarded (task order); at the end once more (index -1). The forwarded
value is the window's latest count. Time windows never write tombstones, and every cached
entry of a key has the same size, so an update in place changes no byte count.
"""
from __future__ import annotations

import numpy as np

from toolkit.fast._jit import njit_cached

_jit = njit_cached  # cached on disk, also from the zip shipped to executors


@_jit
def _unlink(g, prev, nxt, head, tail, t):
    p, q = prev[g], nxt[g]
    if p >= 0:
        nxt[p] = q
    else:
        head[t] = q
    if q >= 0:
        prev[q] = p
    else:
        tail[t] = p
    prev[g] = -1
    nxt[g] = -1


@_jit
def _append(g, prev, nxt, head, tail, t):
    last = tail[t]
    prev[g] = last
    nxt[g] = -1
    if last >= 0:
        nxt[last] = g
    else:
        head[t] = g
    tail[t] = g


@_jit
def _flush(t, index, dprev, dnext, dhead, dtail, dirty, value, out_g, out_i, out_c, k):
    g = dhead[t]
    while g >= 0:
        q = dnext[g]
        out_g[k], out_i[k], out_c[k] = g, index, value[g]
        k += 1
        dirty[g] = False
        dprev[g] = -1
        dnext[g] = -1
        g = q
    dhead[t] = -1
    dtail[t] = -1
    return k


@_jit
def cache_flushes(n_records, arrival, pair_start, pair_group, pair_count, group_task, group_bytes, n_tasks,
                  max_bytes, commit_interval, start_time):
    """Forwarded rows ``(group, record index or -1, count)`` in forwarding order, and the number
    of evictions. ``pair_start[i]:pair_start[i + 1]`` are record ``i``'s accepted pairs."""
    m = len(pair_group)
    ng = len(group_task)
    out_g = np.empty(m + ng, np.int64)
    out_i = np.empty(m + ng, np.int64)
    out_c = np.empty(m + ng, np.int64)
    prev = np.full(ng, -1, np.int64)
    nxt = np.full(ng, -1, np.int64)
    dprev = np.full(ng, -1, np.int64)
    dnext = np.full(ng, -1, np.int64)
    head = np.full(n_tasks, -1, np.int64)
    tail = np.full(n_tasks, -1, np.int64)
    dhead = np.full(n_tasks, -1, np.int64)
    dtail = np.full(n_tasks, -1, np.int64)
    cached = np.zeros(ng, np.bool_)
    dirty = np.zeros(ng, np.bool_)
    value = np.zeros(ng, np.int64)
    size = 0
    k = 0
    evictions = 0
    last_commit = start_time
    for i in range(n_records):
        for j in range(pair_start[i], pair_start[i + 1]):
            g = pair_group[j]
            t = group_task[g]
            if cached[g]:
                _unlink(g, prev, nxt, head, tail, t)
                if dirty[g]:
                    _unlink(g, dprev, dnext, dhead, dtail, t)
            else:
                cached[g] = True
                size += group_bytes[g]
            _append(g, prev, nxt, head, tail, t)
            _append(g, dprev, dnext, dhead, dtail, t)
            dirty[g] = True
            value[g] = pair_count[j]
            while size > max_bytes and head[t] >= 0:
                h = head[t]
                _unlink(h, prev, nxt, head, tail, t)
                cached[h] = False
                size -= group_bytes[h]
                evictions += 1
                if dirty[h]:
                    _unlink(h, dprev, dnext, dhead, dtail, t)
                    dirty[h] = False
                    out_g[k], out_i[k], out_c[k] = h, i, value[h]
                    k += 1
                    k = _flush(t, i, dprev, dnext, dhead, dtail, dirty, value, out_g, out_i, out_c, k)
        if arrival[i] - last_commit > commit_interval:
            for t in range(n_tasks):
                k = _flush(t, i, dprev, dnext, dhead, dtail, dirty, value, out_g, out_i, out_c, k)
            last_commit = arrival[i]
    for t in range(n_tasks):
        k = _flush(t, -1, dprev, dnext, dhead, dtail, dirty, value, out_g, out_i, out_c, k)
    return out_g[:k], out_i[:k], out_c[:k], evictions


@_jit
def throttle_checks(arrival, task, n_tasks, interval):
    """The records at which the on-close throttle lets a task's check run: its first record, then
    each record arriving at least ``interval`` after the task's last check."""
    n = len(arrival)
    out = np.zeros(n, np.bool_)
    nxt = np.full(n_tasks, np.iinfo(np.int64).min, np.int64)
    for i in range(n):
        t = task[i]
        if arrival[i] >= nxt[t]:
            out[i] = True
            nxt[t] = arrival[i] + interval
    return out


@_jit
def stream_times(ts, task, n_tasks):
    """Per record: its task's stream time after it (running max) and before it (-1 first)."""
    n = len(ts)
    after = np.empty(n, np.int64)
    before = np.empty(n, np.int64)
    cur = np.full(n_tasks, -1, np.int64)
    for i in range(n):
        t = task[i]
        before[i] = cur[t]
        if ts[i] > cur[t]:
            cur[t] = ts[i]
        after[i] = cur[t]
    return after, before


@_jit
def group_pairs(key, accepted):
    """Group ids (first-appearance order) of the pairs' int64 ``key`` by open addressing, with
    each accepted pair's running count in its group, each group's first pair, pairs and
    accepted pairs."""
    m = len(key)
    cap = 1
    while cap < 2 * m + 2:
        cap *= 2
    slots = np.full(cap, -1, np.int64)
    group = np.empty(m, np.int64)
    count = np.zeros(m, np.int64)
    g_first = np.empty(m, np.int64)
    g_true = np.zeros(m, np.int64)
    g_acc = np.zeros(m, np.int64)
    ng = 0
    mask = cap - 1
    for j in range(m):
        k = key[j]
        x = k ^ (k >> 33)
        x = x * np.int64(-7046029254386353131)
        h = (x ^ (x >> 29)) & mask
        while True:
            s = slots[h]
            if s < 0:
                slots[h] = ng
                g_first[ng] = j
                s = ng
                ng += 1
                break
            if key[g_first[s]] == k:
                break
            h = (h + 1) & mask
        group[j] = s
        g_true[s] += 1
        if accepted[j]:
            g_acc[s] += 1
            count[j] = g_acc[s]
    return group, count, g_first[:ng], g_true[:ng], g_acc[:ng]


@_jit
def state_rows(group, count, n_groups):
    """Per update row: 1 at its group's first row (the window opens), and its count's growth."""
    m = len(group)
    last = np.zeros(n_groups, np.int64)
    seen = np.zeros(n_groups, np.bool_)
    opens = np.zeros(m, np.int64)
    grow = np.empty(m, np.int64)
    for j in range(m):
        g = group[j]
        if not seen[g]:
            seen[g] = True
            opens[j] = 1
        grow[j] = count[j] - last[g]
        last[g] = count[j]
    return opens, grow
