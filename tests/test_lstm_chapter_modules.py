"""The LSTM chapter's experiment modules: agreement task, controlled delay arms, cell drawings, distant corpus."""

from __future__ import annotations

import dataclasses

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest

from seqmodels.experiments.lstm.agreement import AgreementTask, agreement_experiment, solve_set
from seqmodels.display.cell_diagram import draw_gru_cell, draw_lstm_cell
from seqmodels.experiments.lstm.delay import DELAY_ARMS, ArmsResult, DelayTask, arms_experiment
from seqmodels.datasets.senses import CUE_WORDS, make_distant_corpus
from seqmodels.training.pack import Arm
from seqmodels.training.train import TrainConfig


def test_agreement_sequences_have_the_promised_structure():
    task = AgreementTask(n_nouns=3, n_fillers=2, max_prefix=4, p_noun=0.5)
    xs, y = task.sample(np.random.default_rng(0), 200, distance=7, attractors=3)
    tokens = xs.argmax(axis=-1)  # (T, n)
    N, P = task.n_nouns, task.max_prefix
    assert xs.shape == (4 + 1 + 1 + 7 + 1, 200, task.d_in) and np.all(xs.sum(axis=-1) == 1)
    assert np.all(tokens[P] == task.marker) and np.all(tokens[-1] == task.d_in - 1)
    assert np.array_equal(tokens[P + 1] // N, y) and np.all(tokens[P + 1] < 2 * N)  # the subject follows the marker
    between = tokens[P + 2:-1]
    nouns = between < 2 * N
    assert np.all(nouns.sum(axis=0) == 3)                         # exactly k attractors
    assert np.all((between // N)[nouns] == np.broadcast_to(1 - y, between.shape)[nouns])  # all of the other number
    pre = tokens[:P]
    assert (pre < 2 * N).any() and np.all((pre // N)[pre < 2 * N] == np.broadcast_to(1 - y, pre.shape)[pre < 2 * N])
    assert not np.any(tokens[np.r_[0:P, P + 1:len(tokens)]] == task.marker)  # one marker only
    xs0, _ = task.sample(np.random.default_rng(1), 50, distance=5, attractors=0)
    assert np.all(xs0.argmax(axis=-1)[P + 2:-1] >= 2 * N)         # no nouns in between
    xs_train, _ = task.sample(np.random.default_rng(2), 400, distance=5, prefix=1)
    t_train = xs_train.argmax(axis=-1)
    assert t_train.shape[0] == 1 + 5 + 3 and np.all(t_train[1] == task.marker)
    body = np.r_[t_train[:1].ravel(), t_train[3:-1].ravel()]
    assert 0.4 < (body < 2 * N).mean() < 0.6 and (body < N).any() and ((body >= N) & (body < 2 * N)).any()


def test_agreement_test_controls_change_the_prefix_only():
    task = AgreementTask(n_nouns=3, n_fillers=2, max_prefix=5, p_noun=0.5)
    N, P = task.n_nouns, task.max_prefix
    base, y = task.sample(np.random.default_rng(4), 300, distance=6, attractors=2)
    for kw in (dict(before=3), dict(prefix_nouns="either"), dict(prefix_nouns="same"), dict(before=5, prefix_nouns="same")):
        xs, y2 = task.sample(np.random.default_rng(4), 300, distance=6, attractors=2, **kw)
        assert np.array_equal(y2, y) and np.array_equal(xs[P:], base[P:])  # marker, subject, in between, verb
        pre = xs[:P].argmax(axis=-1)
        nouns = pre < 2 * N
        if "before" in kw:
            assert np.all(nouns.sum(axis=0) == kw["before"])                  # exactly b nouns before the subject
        else:
            assert np.array_equal(nouns, base[:P].argmax(axis=-1) < 2 * N)    # the same noun positions
        number = np.broadcast_to(y, pre.shape)[nouns]
        if kw.get("prefix_nouns") == "same":
            assert np.all(pre[nouns] // N == number)
        elif kw.get("prefix_nouns") == "either":
            assert 0.4 < (pre[nouns] // N == number).mean() < 0.6
        else:
            assert np.all(pre[nouns] // N == 1 - number)
    xs0, _ = task.sample(np.random.default_rng(5), 10, distance=6, attractors=2, prefix=3, before=0)
    assert np.all(xs0[:3].argmax(axis=-1) >= 2 * N) and np.all(xs0[3].argmax(axis=-1) == task.marker)


def test_agreement_result_tests_the_same_models_again():
    task = AgreementTask(max_prefix=3)
    r = agreement_experiment([Arm("RNN", "rnn", 4), Arm("LSTM", "lstm", 4, 1.0)], distances=(1, 4), attractors=(0, 2),
                             seeds=(0, 1), config=TrainConfig(steps=20), n_test=30, train_distances=(1, 4), task=task)
    assert r.runs.keys() == {"RNN", "LSTM"} and r.task == task and r.n_test == 30
    np.testing.assert_array_equal(r.test(), r.accuracy)                      # the defaults are the tests behind it
    other = r.test((4,), (2,), prefix=0, n_test=20)
    assert other.shape == (2, 1, 1, 2) and np.allclose(other * 20, np.rint(other * 20))  # fractions of 20 sequences
    spread = r.test((1, 4), (0, 2), prefix=range(4), n_test=30)            # 8 + 8 + 7 + 7 sequences per cell
    assert spread.shape == r.accuracy.shape and np.isnan(spread[:, 0, 1]).all() and not np.isnan(spread[:, 1]).any()
    assert np.allclose(spread[:, 1] * 30, np.rint(spread[:, 1] * 30))     # answers right out of 30
    grid = [r.test((4,), (0, 2), before=b) for b in range(4)]
    assert all(g.shape == (2, 1, 2, 2) for g in grid)
    np.testing.assert_array_equal(r.test((4,), (2,), seed=2000), r.accuracy[:, 1:, 1:])
    with pytest.raises(ValueError, match="before must be <= prefix"):
        r.test(prefix=[0, 3], before=2)


@pytest.mark.parametrize("kwargs,match", [
    (dict(n=0, distance=3), "n must be an integer"), (dict(n=2, distance=-1), "distance must be an integer"),
    (dict(n=2, distance=3, attractors=4), "attractors must be <= distance"),
    (dict(n=2, distance=3, prefix=7), "prefix must be <= max_prefix"),
])
def test_agreement_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        AgreementTask().sample(np.random.default_rng(0), **kwargs)


def test_agreement_experiment_shapes_and_nan_where_impossible():
    r = agreement_experiment([Arm("RNN", "rnn", 4)], distances=(1, 3), attractors=(0, 2), seeds=(0, 1),
                             config=TrainConfig(steps=3), n_test=20, train_distances=(1, 2))
    assert r.accuracy.shape == (1, 2, 2, 2)
    assert np.isnan(r.accuracy[0, 0, 1]).all() and not np.isnan(r.accuracy[0, 1]).any()
    with pytest.raises(ValueError, match="train_distances"):
        agreement_experiment([Arm("RNN", "rnn", 4)], distances=(1,), train_distances=(3, 1))


def test_arms_experiment_records_every_budget_and_table():
    r = arms_experiment([2], arms=DELAY_ARMS[:2], seeds=(0, 1), budgets=(2, 4), config=TrainConfig(steps=4), n_test=30)
    assert isinstance(r, ArmsResult) and r.accuracy.shape == (2, 1, 2, 2)
    assert r.solved().shape == (2, 1, 2) and r.final().shape == (2, 1, 2)
    rows = [[text for text, _ in row] for row in r.table().cells]
    assert rows[1][:2] == ["RNN, 36 units", "1,804"] and rows[1][3].endswith(" of 2")  # arm, parameters, solved
    solved_rows = [[text for text, _ in row] for row in r.solved_table().cells]
    k = int(r.solved()[1, 0, -1])
    assert solved_rows[1][0] == "RNN, 36 units" and solved_rows[1][1].startswith(f"{k} of 2 (")
    with pytest.raises(KeyError):
        r.index("LSTM")
    with pytest.raises(ValueError, match="budgets must be <="):
        arms_experiment([2], arms=DELAY_ARMS[:1], budgets=(10,), config=TrainConfig(steps=4))


def test_a_longer_budget_for_some_arms_read_back_at_the_common_one():
    # the chapter's delay-40 design: some arms train on, the others stop at a shorter budget, and
    # up_to reads the result (accuracies and weights) as a run with the shorter budget would give it
    kw = dict(arms=DELAY_ARMS[:2], seeds=(0, 1), n_test=40)
    r = arms_experiment([3], budgets=(10, 30), config=TrainConfig(steps=30), arm_steps={"RNN, 36 units": 10},
                        keep_params=(10,), **kw)
    short = arms_experiment([3], budgets=(10,), config=TrainConfig(steps=10), **kw)
    assert r.ran().tolist() == [[[True, True]], [[True, False]]]
    assert np.isnan(r.accuracy[1, 0, 1]).all() and r.solved()[1, 0, 1] == 0
    rows = [[text for text, _ in row] for row in r.budget_table(3).cells]
    assert rows[1][0] == "RNN, 36 units" and rows[1][2] == "not run" and rows[0][2].endswith(" of 2")
    at10 = r.up_to(10)
    assert at10.budgets == (10,)
    np.testing.assert_array_equal(at10.accuracy, short.accuracy)
    for arm in kw["arms"]:
        for k, v in short.runs[3][arm.name].params.items():
            np.testing.assert_array_equal(at10.runs[3][arm.name].params[k], v)
    both = ArmsResult.combine([at10, short])            # combines with runs of the shorter budget
    assert both.accuracy.shape == (2, 2, 1, 2)
    with pytest.raises(ValueError, match="not every arm was trained that long"):
        r.up_to(30)
    with pytest.raises(ValueError, match="were not kept"):
        short.up_to(10)


def test_arms_experiment_with_the_stopping_rule():
    kw = dict(arms=DELAY_ARMS[:1] + DELAY_ARMS[4:5], seeds=(0, 1), n_test=60)
    r = arms_experiment([2], budgets=(20,), stop_when_solved=True, cap=300, check_every=20, n_solve=100, **kw)
    assert r.budgets == (20, 300) and r.cap == 300 and r.accuracy.shape == (2, 1, 2, 2)
    assert r.steps_to_solve.shape == r.censored.shape == (2, 1, 2) and r.censored.dtype == bool
    for i, arm in enumerate(r.arms):  # the result is the runs' record
        run = r.runs[2][arm.name]
        np.testing.assert_array_equal(r.steps_to_solve[i, 0], run.steps_to_solve)
        np.testing.assert_array_equal(r.censored[i, 0], ~run.solved)
    assert (r.steps_to_solve[r.censored] == 300).all()
    lstm = r.index("LSTM, forget bias 3")
    assert not r.censored[lstm].any() and r.n_censored()[lstm, 0] == 0
    assert r.median_steps_to_solve()[lstm, 0] == np.median(r.steps_to_solve[lstm, 0])
    rows = [[text for text, _ in row] for row in r.steps_table().cells]
    assert rows[lstm][1] == "2 of 2"
    both = ArmsResult.combine([r, arms_experiment([3], budgets=(20,), stop_when_solved=True, cap=300,
                                                  check_every=20, n_solve=100, **kw)])
    assert both.steps_to_solve.shape == (2, 2, 2) and both.n_censored().shape == (2, 2)
    plain = arms_experiment([2], budgets=(20,), config=TrainConfig(steps=20), **kw)
    assert plain.steps_to_solve is None and plain.cap is None and plain.budgets == (20,)
    with pytest.raises(ValueError, match="stop_when_solved=True"):
        plain.n_censored()
    with pytest.raises(ValueError, match="stopping rule"):
        ArmsResult.combine([r, dataclasses.replace(plain, budgets=r.budgets)])
    with pytest.raises(ValueError, match="budgets must be <= cap"):
        arms_experiment([2], budgets=(400,), stop_when_solved=True, cap=300, **kw)


def test_fixed_budget_arms_experiment_is_train_arms_at_the_budgets():
    # the default path: the accuracies are train_arms' checkpoints, with no stopping rule
    from seqmodels.training.pack import train_arms
    task = DelayTask()
    r = arms_experiment([3], arms=DELAY_ARMS[:2], seeds=(0, 1), budgets=(10, 30), config=TrainConfig(steps=30),
                        n_test=40)
    runs = train_arms(DELAY_ARMS[:2], lambda rng, n: task.sample(rng, n, 3), task.d_in, task.n_symbols, (0, 1),
                      TrainConfig(steps=30), data_seed=3, test=task.sample(np.random.default_rng([1000, 3]), 40, 3),
                      checkpoints=(10, 30))
    for i, arm in enumerate(DELAY_ARMS[:2]):
        for m, b in enumerate((10, 30)):
            np.testing.assert_array_equal(r.accuracy[i, 0, m], runs[arm.name].checkpoint_accuracy[b])
        for k in runs[arm.name].params:
            np.testing.assert_array_equal(r.runs[3][arm.name].params[k], runs[arm.name].params[k])


def test_agreement_experiment_with_the_stopping_rule():
    arms = [Arm("RNN", "rnn", 4), Arm("LSTM", "lstm", 8, 1.0)]
    kw = dict(distances=(1, 3), attractors=(0, 1), seeds=(0, 1), n_test=40, train_distances=(1, 3),
              task=AgreementTask(max_prefix=2))
    r = agreement_experiment(arms, stop_when_solved=True, cap=200, check_every=20, n_solve=30, **kw)
    assert r.cap == 200 and r.steps_to_solve.shape == r.censored.shape == (2, 2)
    assert (r.steps_to_solve[~r.censored] % 20 == 0).all() and (r.steps_to_solve[r.censored] == 200).all()
    assert r.n_censored().shape == r.median_steps_to_solve().shape == (2,)
    strict = agreement_experiment(arms, stop_when_solved=True, cap=200, check_every=20, n_solve=30,
                                  solve_attractors=(0, 1), **kw)
    assert strict.steps_to_solve.shape == (2, 2)
    plain = agreement_experiment(arms, config=TrainConfig(steps=5), **kw)
    assert plain.steps_to_solve is None and plain.censored is None and plain.cap is None
    with pytest.raises(ValueError, match="stop_when_solved=True"):
        plain.median_steps_to_solve()


def test_agreement_solve_set_is_the_training_distribution_from_its_own_seed():
    task = AgreementTask()
    batches = solve_set(task, (1, 12), 20)
    assert len(batches) == 12
    for d, (xs, y) in enumerate(batches, start=1):
        prefix = xs.shape[0] - d - 3
        assert 0 <= prefix <= task.max_prefix and xs.shape[1:] == (20, task.d_in) and set(y) <= {0, 1}
        assert (xs[prefix].argmax(axis=-1) == task.marker).all()
    again = solve_set(task, (1, 12), 20)
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(batches, again))
    other = solve_set(task, (1, 12), 20, seed=2000)
    assert not all(a[0].shape == b[0].shape and np.array_equal(a[0], b[0]) for a, b in zip(batches, other))
    # built as the tests are, at the training distances only: full prefix, exactly k attractors
    styled = solve_set(task, (1, 3), 20, attractors=(0, 2))
    assert [(xs.shape[0] - task.max_prefix - 3) for xs, _ in styled] == [1, 2, 2, 3, 3]
    tokens, y = styled[2][0].argmax(axis=-1), styled[2][1]  # distance 2, two attractors
    between = tokens[task.max_prefix + 2:-1]
    assert (between < 2 * task.n_nouns).all() and ((between // task.n_nouns) == 1 - y).all()


def test_parameter_matched_rnn_is_within_five_percent_of_the_lstm():
    n = {a.name: a.n_params(9, 4) for a in DELAY_ARMS}
    assert abs(n["RNN, 36 units"] - n["LSTM, forget bias 3"]) < 0.05 * n["LSTM, forget bias 3"]


def test_cell_diagrams_draw_every_symbol():
    fig, (a, b) = plt.subplots(1, 2)
    lstm, gru = draw_lstm_cell(a), draw_gru_cell(b)
    assert {"$f_t$", "$i_t$", "$g_t$", "$o_t$", "$c_t$", "$h_t$"} <= set(lstm.labels)
    assert {"$r_t$", "$z_t$", "$n_t$", "$h_t$"} <= set(gru.labels)
    assert set(lstm.labels) <= {t.get_text() for t in a.texts}
    assert set(gru.labels) <= {t.get_text() for t in b.texts}
    plt.close(fig)
    with pytest.raises(ValueError, match="ax must be a matplotlib Axes"):
        draw_lstm_cell("not an axes")


def test_distant_corpus_holds_out_whole_cue_phrases():
    c = make_distant_corpus(seed=3)
    train_text = [s.text for s in c.train]
    for s in c.test:
        cue = s.text.split("with ")[-1] if s.cue == "after" else s.text.split(" we ")[0].split(" they ")[0].split(" she ")[0].removeprefix("after ")
        assert not any(cue in t for t in train_text), cue
        pos = s.position
        assert s.cue in ("before", "after")
        words = set(CUE_WORDS[s.sense])
        near = s.words[max(0, pos - 3):pos + 4]
        assert not words & set(near) or s.cue == "after" and len(s.words) - pos > 4
    with pytest.raises(ValueError, match="held_out"):
        make_distant_corpus(held_out=0)


def test_cell_diagram_path_labels_are_not_struck_through_by_the_outline():
    """The label of the cell (state) path sits wholly above the dashed outline of the step."""
    from matplotlib.patches import FancyBboxPatch

    for draw in (draw_lstm_cell, draw_gru_cell):
        fig, ax = plt.subplots(figsize=(7.0, 4.6))
        draw(ax)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        label = next(t for t in ax.texts if t.get_text().endswith(("no squashing", "no weight matrix")))
        outline = next(p for p in ax.patches if isinstance(p, FancyBboxPatch) and p.get_linestyle() == "--")
        text_box, outline_box = label.get_window_extent(renderer), outline.get_window_extent(renderer)
        assert text_box.y0 > outline_box.y1, (draw.__name__, text_box, outline_box)
        assert ax.get_window_extent(renderer).contains(text_box.x1, text_box.y1)   # and inside the axes
        plt.close(fig)


def test_wilson_and_fisher_against_known_values():
    from scipy import stats

    from seqmodels.common.statistics import fisher_exact, wilson_interval
    # Wilson (1927) score intervals, as tabulated e.g. by Newcombe (1998), Table I: 0.313-0.832 for 6/10
    assert np.allclose(wilson_interval(6, 10), (0.3127, 0.8318), atol=1e-4)
    assert np.allclose(wilson_interval(0, 10), (0.0, 0.2775), atol=1e-4)
    assert np.allclose(wilson_interval(10, 10), (0.7225, 1.0), atol=1e-4)
    for k, n in [(0, 1), (3, 7), (10, 20), (19, 20)]:
        lo, hi = wilson_interval(k, n)
        ref = stats.binomtest(k, n).proportion_ci(method="wilson")
        assert np.allclose((lo, hi), (ref.low, ref.high), atol=1e-9)
    for k1, n1, k2, n2 in [(10, 10, 6, 10), (3, 10, 10, 10), (1, 10, 7, 10), (0, 10, 0, 10), (4, 9, 2, 11),
                           (20, 20, 0, 20), (5, 10, 5, 10)]:
        ref = stats.fisher_exact([[k1, n1 - k1], [k2, n2 - k2]]).pvalue
        assert abs(fisher_exact(k1, n1, k2, n2) - ref) < 1e-9
    assert abs(fisher_exact(10, 10, 6, 10) - 0.0867) < 1e-4
