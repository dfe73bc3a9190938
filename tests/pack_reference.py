"""The fixed-budget training loop of ``seqmodels.training.pack.train_arms`` as it was before the
solve-based stopping rule (commit c6fdb7c), frozen here so a test can check that ``train_arms``
without ``solve`` still computes exactly this, bit for bit: the chapters' glued numbers depend on
it. It calls the packed kernels only through their public functions, so a rewrite of the
kernels changes both sides alike. Argument checks are left out (the inputs are the test's).
"""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

from seqmodels.common.optim import Adam
from seqmodels.training.pack import init_pack, pack_logits, pack_loss_and_grads


def train_arms_before_stopping(arms, sample, d_in, n_classes, seeds, config, data_seed=0, dtype=np.float64,
                               test=None, checkpoints=()):
    """``{arm name: (params, losses, steps_taken, checkpoint_accuracy)}`` as train_arms computed them."""
    seeds = tuple(int(s) for s in seeds)
    groups = {}
    for arm in arms:
        groups.setdefault((arm.kind, arm.d_hidden), []).append(arm)
    dtype = np.dtype(dtype)
    packs = {key: {k: np.concatenate([init_pack(a, d_in, n_classes, seeds)[k] for a in members]).astype(dtype)
                    for k in init_pack(members[0], d_in, n_classes, seeds[:1])}
              for key, members in groups.items()}
    opts = {key: Adam(lr=config.lr) for key in groups}
    n_models = {key: len(members) * len(seeds) for key, members in groups.items()}
    losses = {key: np.full((config.steps, n), np.nan) for key, n in n_models.items()}
    active = {key: np.ones(n, dtype=bool) for key, n in n_models.items()}
    taken = {key: np.full(n, config.steps) for key, n in n_models.items()}
    data_rng = np.random.default_rng([data_seed, 1])
    checkpoints = sorted(set(checkpoints))
    at = {key: {} for key in groups}
    changed = {key: np.ones(n, dtype=bool) for key, n in n_models.items()}

    def record(after):
        for key, params in packs.items():
            acc = np.zeros(n_models[key]) if not at[key] else at[key][max(at[key])].copy()
            todo = np.flatnonzero(changed[key])
            if todo.size:
                logits = pack_logits(key[0], {k: v[todo] for k, v in params.items()}, np.asarray(test[0], dtype))
                acc[todo] = (logits.argmax(axis=-1) == np.asarray(test[1])).mean(axis=1)
            at[key][after] = acc
            changed[key] = active[key].copy()

    with threadpool_limits(limits=1, user_api="blas"):
        for step in range(config.steps):
            xs, labels = sample(data_rng, config.batch)
            if step in checkpoints:
                record(step)
            if not any(a.any() for a in active.values()):
                for c in checkpoints:
                    if c > step:
                        record(c)
                break
            for key, params in packs.items():
                on = np.flatnonzero(active[key])
                if on.size == 0:
                    continue
                sub = {k: v[on] for k, v in params.items()}
                loss, g_sub = pack_loss_and_grads(key[0], sub, xs.astype(dtype), labels)
                losses[key][step, on] = loss
                norm = np.sqrt(sum((g.reshape(len(g), -1) ** 2).sum(axis=1) for g in g_sub.values()))
                scale = np.minimum(1.0, config.clip / np.maximum(norm, 1e-30))
                grads = {k: np.zeros_like(v) for k, v in params.items()}
                for k, g in g_sub.items():
                    grads[k][on] = g * scale.reshape((-1,) + (1,) * (g.ndim - 1))
                frozen = {k: v[~active[key]].copy() for k, v in params.items()}
                opts[key].step(params, grads)
                for k, v in params.items():
                    v[~active[key]] = frozen[k]
                if step >= 9 and config.stop_loss > 0:
                    recent = losses[key][step - 9:step + 1].mean(axis=0)
                    done = active[key] & (recent < config.stop_loss)
                    taken[key][done] = step + 1
                    active[key] &= ~done
        if config.steps in checkpoints:
            record(config.steps)
    out = {}
    for key, members in groups.items():
        S = len(seeds)
        for j, arm in enumerate(members):
            part = slice(j * S, (j + 1) * S)
            out[arm.name] = ({k: v[part].copy() for k, v in packs[key].items()}, losses[key][:, part],
                             taken[key][part], {c: a[part] for c, a in at[key].items()})
    return out
