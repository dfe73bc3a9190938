r"""What serving a Transformer language model costs: published model shapes, the bytes a decoding
step reads, the FLOPs it does, and their ratio (arithmetic intensity).

- :class:`ModelShape` and :data:`MODEL_SHAPES`: layers, widths, heads and key-value heads of real
  models, from the papers and released configurations cited in each entry;
- :func:`kv_cache_bytes`: the KV cache of one sequence, per token or for ``t`` tokens;
- :func:`weight_count`: the parameters implied by a shape (a check of the shape against the
  model's published size), and :func:`weights_read`, those a decoding step reads in full;
- :func:`decode_step_cost`, :func:`prefill_cost`: FLOPs and bytes read of one decoding step at
  context ``t`` and of reading a prompt of ``n`` tokens, and :func:`arithmetic_intensity`;
- :class:`Device` and :data:`DEVICES`: peak 16-bit FLOP/s, memory bandwidth and memory of real
  accelerators, from their datasheets, and :data:`CPUS`, a CPU for contrast (its datasheet's FP64
  peak); :func:`ridge_point`, :func:`roofline_time` (a step's time
  if it ran at whichever of the two limits binds), :func:`intensity_limit` (where batching stops
  helping) and :func:`max_batch` (the sequences whose caches fit beside the weights).

Counting rules. Two FLOPs per multiply-add; only matrix products (norms, softmax and activations
are a small fraction at these sizes). Bytes read per step: every weight once, plus the cached keys
and values of every sequence in the batch; activations are small next to them and not counted.
A step over a batch of ``B`` sequences reads the weights once and does ``B`` times the work.
"""

from __future__ import annotations

from dataclasses import dataclass

from seqmodels.common._checks import finite_float, positive_int


@dataclass(frozen=True)
class ModelShape:
    """The sizes that set a decoder's serving cost.

    ``n_heads`` query heads of width ``d_head`` (so ``n_heads * d_head = d_model``) share
    ``n_kv_heads`` key-value heads (grouped-query attention when fewer, Ainslie et al. 2023);
    ``d_ff`` is the feed-forward width, with three matrices when ``gated`` (SwiGLU) and two
    otherwise; ``max_context`` is the longest sequence the model was released for; ``tied`` embeddings share the input table with the output matrix;
    ``bytes_per_number`` is 2 for 16-bit weights and cache. ``published_params`` is the size the
    model's authors state, in parameters; ``source`` cites where the shape is given.

    Raises
    ------
    ValueError
        If a size is not an integer >= 1, ``n_kv_heads`` does not divide ``n_heads``,
        ``n_heads * d_head != d_model``, or ``published_params`` is not a finite number > 0.
    """

    name: str
    n_layers: int
    d_model: int
    n_heads: int
    n_kv_heads: int
    d_head: int
    d_ff: int
    vocab: int
    gated: bool
    tied: bool
    published_params: float
    max_context: int
    source: str
    bytes_per_number: int = 2

    def __post_init__(self):
        for name in ("max_context", "n_layers", "d_model", "n_heads", "n_kv_heads", "d_head", "d_ff", "vocab", "bytes_per_number"):
            positive_int(name, getattr(self, name))
        finite_float("published_params", self.published_params, low=0, low_open=True)
        if self.n_heads % self.n_kv_heads:
            raise ValueError(f"n_kv_heads must divide n_heads={self.n_heads}, got {self.n_kv_heads}")
        if self.n_heads * self.d_head != self.d_model:
            raise ValueError(f"n_heads * d_head must equal d_model={self.d_model}, got {self.n_heads} * {self.d_head}")


#: Published shapes, all with 16-bit numbers.
MODEL_SHAPES = {
    "Llama-2-7B": ModelShape("Llama-2-7B", n_layers=32, d_model=4096, n_heads=32, n_kv_heads=32, d_head=128,
                             d_ff=11008, vocab=32000, gated=True, tied=False, published_params=7e9, max_context=4096,
                             source="touvron2023llama2"),
    "Llama-3.1-8B": ModelShape("Llama-3.1-8B", n_layers=32, d_model=4096, n_heads=32, n_kv_heads=8, d_head=128,
                               d_ff=14336, vocab=128256, gated=True, tied=False, published_params=8e9, max_context=131072,
                               source="grattafiori2024llama3"),
    "OPT-13B": ModelShape("OPT-13B", n_layers=40, d_model=5120, n_heads=40, n_kv_heads=40, d_head=128,
                          d_ff=20480, vocab=50272, gated=False, tied=True, published_params=13e9, max_context=2048,
                          source="zhang2022opt"),
    "GPT-3 175B": ModelShape("GPT-3 175B", n_layers=96, d_model=12288, n_heads=96, n_kv_heads=96, d_head=128,
                             d_ff=49152, vocab=50257, gated=False, tied=True, published_params=175e9, max_context=2048,
                             source="brown2020language"),
}


def _as_shape(shape) -> ModelShape:
    if not isinstance(shape, ModelShape):
        raise ValueError(f"shape must be a ModelShape (see MODEL_SHAPES), got {type(shape).__name__}")
    return shape


def kv_cache_bytes(shape: ModelShape, t: int = 1) -> int:
    """Bytes of keys and values one sequence keeps after ``t`` tokens:
    ``2 (key and value) * n_layers * n_kv_heads * d_head * bytes_per_number * t``.

    The vLLM paper's example (Kwon et al. 2023, Section 3): OPT-13B keeps 800 KB per token.

    Raises
    ------
    ValueError
        If ``shape`` is not a :class:`ModelShape` or a count is not an integer >= 1.

    >>> kv_cache_bytes(MODEL_SHAPES["OPT-13B"]) / 2**10
    800.0
    """
    shape, t = _as_shape(shape), positive_int("t", t)
    return 2 * shape.n_layers * shape.n_kv_heads * shape.d_head * shape.bytes_per_number * t


def _per_layer_weights(shape: ModelShape) -> int:
    attention = 2 * shape.d_model * shape.d_model + 2 * shape.d_model * shape.n_kv_heads * shape.d_head  # W_q, W_o; W_k, W_v
    feed_forward = (3 if shape.gated else 2) * shape.d_model * shape.d_ff
    return attention + feed_forward


def weight_count(shape: ModelShape) -> int:
    """Parameters of the weight matrices implied by ``shape``: per layer ``W_q, W_o`` (``d^2`` each),
    ``W_k, W_v`` (``d * n_kv_heads * d_head`` each) and the feed-forward matrices, plus the
    embedding table (and a separate output matrix unless ``tied``). Norms, biases and learned
    positions (a few million at most) are left out.

    Raises
    ------
    ValueError
        If ``shape`` is not a :class:`ModelShape` or a count is not an integer >= 1.

    >>> round(weight_count(MODEL_SHAPES["Llama-2-7B"]) / 1e9, 2)
    6.74
    """
    shape = _as_shape(shape)
    embeddings = shape.vocab * shape.d_model * (1 if shape.tied else 2)
    return shape.n_layers * _per_layer_weights(shape) + embeddings


def weights_read(shape: ModelShape) -> int:
    """Parameters a step reads in full: :func:`weight_count` less the input embedding table when it
    is separate from the output matrix (``tied=False``), since a step looks up one row of it.

    Raises
    ------
    ValueError
        If ``shape`` is not a :class:`ModelShape` or a count is not an integer >= 1.

    >>> s = MODEL_SHAPES["Llama-2-7B"]
    >>> weight_count(s) - weights_read(s) == s.vocab * s.d_model
    True
    """
    shape = _as_shape(shape)
    return weight_count(shape) - (0 if shape.tied else shape.vocab * shape.d_model)


def decode_step_cost(shape: ModelShape, t: int, batch: int = 1) -> dict[str, float]:
    """FLOPs and bytes read by one decoding step of ``batch`` sequences, each with ``t`` tokens of
    context (the new one included).

    - ``"weight_flops"``: ``2 * weights_read * batch`` (every matrix multiplies each sequence's
      one new vector; an embedding lookup does no arithmetic);
    - ``"attention_flops"``: ``4 * n_layers * d_model * t * batch`` (scores and weighted sum over
      ``t`` cached positions, for every query head);
    - ``"weight_bytes"``: :func:`weights_read` read once per step, whatever the batch;
    - ``"cache_bytes"``: every sequence's keys and values read once, ``batch * kv_cache_bytes(t)``.

    Raises
    ------
    ValueError
        If ``shape`` is not a :class:`ModelShape` or a count is not an integer >= 1.

    >>> c = decode_step_cost(MODEL_SHAPES["Llama-2-7B"], t=1)
    >>> round((c["weight_flops"] + c["attention_flops"]) / (c["weight_bytes"] + c["cache_bytes"]), 2)
    1.0
    """
    shape, t, batch = _as_shape(shape), positive_int("t", t), positive_int("batch", batch)
    n_weights = weights_read(shape)
    return {"weight_flops": 2.0 * n_weights * batch,
            "attention_flops": 4.0 * shape.n_layers * shape.d_model * t * batch,
            "weight_bytes": float(n_weights * shape.bytes_per_number),
            "cache_bytes": float(batch * kv_cache_bytes(shape, t))}


def prefill_cost(shape: ModelShape, n: int) -> dict[str, float]:
    """FLOPs and bytes of reading a prompt of ``n`` tokens in one causal pass (one sequence).

    ``"weight_flops"``: ``2 * weights_read * n``; ``"attention_flops"``: ``4 * n_layers * d_model``
    times the ``n (n + 1) / 2`` query-key pairs a causal mask keeps; ``"weight_bytes"``: every
    weight read once; ``"cache_bytes"``: the cache of ``n`` tokens, written once. Activations and
    an unfused score matrix are not counted, so the intensity from these bytes is an upper bound.

    Raises
    ------
    ValueError
        If ``shape`` is not a :class:`ModelShape` or a count is not an integer >= 1.

    >>> c = prefill_cost(MODEL_SHAPES["Llama-2-7B"], n=1)
    >>> c["weight_flops"] == decode_step_cost(MODEL_SHAPES["Llama-2-7B"], t=1)["weight_flops"]
    True
    """
    shape, n = _as_shape(shape), positive_int("n", n)
    n_weights = weights_read(shape)
    return {"weight_flops": 2.0 * n_weights * n,
            "attention_flops": 4.0 * shape.n_layers * shape.d_model * n * (n + 1) / 2,
            "weight_bytes": float(n_weights * shape.bytes_per_number),
            "cache_bytes": float(kv_cache_bytes(shape, n))}


def arithmetic_intensity(cost: dict[str, float]) -> float:
    """FLOPs per byte moved, ``(weight_flops + attention_flops) / (weight_bytes + cache_bytes)``,
    for a dict from :func:`decode_step_cost` or :func:`prefill_cost`.

    Raises
    ------
    ValueError
        If ``cost`` is not a dict, an entry is not a finite number >= 0, or it moves no bytes.
    KeyError
        If ``cost`` lacks one of the four entries.

    >>> arithmetic_intensity({"weight_flops": 4.0, "attention_flops": 0.0, "weight_bytes": 2.0, "cache_bytes": 0.0})
    2.0
    """
    if not isinstance(cost, dict):
        raise ValueError(f"cost must be a dict from decode_step_cost or prefill_cost, got {type(cost).__name__}")
    missing = {"weight_flops", "attention_flops", "weight_bytes", "cache_bytes"} - set(cost)
    if missing:
        raise KeyError(f"cost must hold {sorted(missing)}")
    for key in ("weight_flops", "attention_flops", "weight_bytes", "cache_bytes"):
        finite_float(f"cost[{key!r}]", cost[key], low=0)
    moved = cost["weight_bytes"] + cost["cache_bytes"]
    if not moved > 0:
        raise ValueError(f"cost must move a positive number of bytes, got {moved}")
    return float((cost["weight_flops"] + cost["attention_flops"]) / moved)


@dataclass(frozen=True)
class Device:
    """What a roofline needs of a processor: ``peak_flops``, its peak rate in FLOP/s for the
    arithmetic ``rate`` names (``"dense BF16"``, the 16-bit matrix rate without sparsity, unless
    the datasheet gives another); ``bandwidth``, its memory bandwidth in bytes/s; ``memory``, its
    memory in bytes; ``source``, the bibliography key of the datasheet the numbers are read from.

    Raises
    ------
    ValueError
        If a number is not finite and > 0, or ``rate`` is not a non-empty string.
    """

    name: str
    peak_flops: float
    bandwidth: float
    memory: float
    source: str
    rate: str = "dense BF16"

    def __post_init__(self):
        for name in ("peak_flops", "bandwidth", "memory"):
            finite_float(name, getattr(self, name), low=0, low_open=True)
        if not isinstance(self.rate, str) or not self.rate:
            raise ValueError(f"rate must be a non-empty string naming the arithmetic peak_flops "
                             f"counts, got {self.rate!r}")


#: Datasheet numbers (SXM boards). NVIDIA gives the H100's and H200's BF16 rate only "with
#: sparsity" (1,979 TFLOPS), twice the dense rate, so the dense rate is half of it; the A100's
#: 312 TFLOPS is the dense one (624 with sparsity). Memory in the datasheets' GB, read as 1e9 bytes.
DEVICES = {
    "A100 80GB": Device("A100 80GB", peak_flops=312e12, bandwidth=2039e9, memory=80e9, source="nvidia2021a100"),
    "H100": Device("H100", peak_flops=1979e12 / 2, bandwidth=3.35e12, memory=80e9, source="nvidia2023h100"),
    "H200": Device("H200", peak_flops=1979e12 / 2, bandwidth=4.8e12, memory=141e9, source="nvidia2024h200"),
}

#: A CPU for contrast. NVIDIA's table for the Grace CPU Superchip (two 72-core Grace CPUs) gives
#: "Up to 1 TB/s" of memory bandwidth, "Up to 960 GB" of memory and one arithmetic rate, its
#: "FP64 peak" of 7.1 TFLOPS; it gives no 16-bit rate, so ``peak_flops`` is the FP64 one.
CPUS = {
    "Grace CPU Superchip": Device("Grace CPU Superchip", peak_flops=7.1e12, bandwidth=1e12, memory=960e9,
                                  source="nvidia2022grace", rate="FP64"),
}


def _as_device(device) -> Device:
    if not isinstance(device, Device):
        raise ValueError(f"device must be a Device (see DEVICES), got {type(device).__name__}")
    return device


def ridge_point(device: Device) -> float:
    """The arithmetic intensity (FLOPs per byte) at which ``device`` is as long busy computing as
    reading: ``peak_flops / bandwidth``. A step of lower intensity is bound by memory bandwidth.

    Raises
    ------
    ValueError
        If ``device`` is not a :class:`Device`.

    >>> round(ridge_point(DEVICES["A100 80GB"]))
    153
    """
    device = _as_device(device)
    return device.peak_flops / device.bandwidth


def roofline_time(cost: dict[str, float], device: Device) -> dict[str, float]:
    """Lower bounds on the time of the work ``cost`` (from :func:`decode_step_cost` or
    :func:`prefill_cost`) on ``device``: ``"compute"``, its FLOPs at the peak rate; ``"memory"``,
    its bytes at the full bandwidth; ``"bound"``, the larger of the two (the roofline model of
    Williams et al. 2009). Real kernels reach neither peak, so each is a bound, not a prediction.

    Raises
    ------
    ValueError
        As :func:`arithmetic_intensity` for ``cost``; ``device`` not a :class:`Device`.

    >>> r = roofline_time({"weight_flops": 2e12, "attention_flops": 0.0, "weight_bytes": 1e12,
    ...                    "cache_bytes": 0.0}, DEVICES["H200"])
    >>> round(r["memory"], 4), r["bound"] == r["memory"]
    (0.2083, True)
    """
    device = _as_device(device)
    arithmetic_intensity(cost)  # checks cost
    flops = cost["weight_flops"] + cost["attention_flops"]
    moved = cost["weight_bytes"] + cost["cache_bytes"]
    compute, memory = flops / device.peak_flops, moved / device.bandwidth
    return {"compute": compute, "memory": memory, "bound": max(compute, memory)}


def intensity_limit(shape: ModelShape, t: int) -> float:
    """The arithmetic intensity a decoding step at context ``t`` approaches as the batch grows
    without bound: once the weights are shared by many sequences, each one brings
    ``2 * weights_read + 4 * n_layers * d_model * t`` FLOPs and its own cache of
    ``kv_cache_bytes(t)`` bytes, so the intensity tends to their ratio.

    Raises
    ------
    ValueError
        If ``shape`` is not a :class:`ModelShape` or ``t`` is not an integer >= 1.

    >>> round(intensity_limit(MODEL_SHAPES["Llama-2-7B"], 4096), 2)
    7.15
    """
    shape, t = _as_shape(shape), positive_int("t", t)
    return (2.0 * weights_read(shape) + 4.0 * shape.n_layers * shape.d_model * t) / kv_cache_bytes(shape, t)


def max_batch(shape: ModelShape, device: Device, t: int) -> int:
    """The most sequences of ``t`` tokens whose KV caches fit in ``device``'s memory beside all the
    weights (:func:`weight_count`, 16-bit): ``floor((memory - weight bytes) / kv_cache_bytes(t))``,
    0 if not even one fits. Activations and the memory a server keeps free are not counted, so
    this is an upper bound.

    Raises
    ------
    ValueError
        If ``shape`` or ``device`` is of the wrong type or ``t`` is not an integer >= 1.

    >>> max_batch(MODEL_SHAPES["Llama-2-7B"], DEVICES["H100"], 4096)
    30
    """
    shape, device, t = _as_shape(shape), _as_device(device), positive_int("t", t)
    free = device.memory - weight_count(shape) * shape.bytes_per_number
    return max(0, int(free // kv_cache_bytes(shape, t)))
