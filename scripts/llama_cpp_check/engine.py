"""llama.cpp, driven through ``llama-cpp-python``'s low-level API with the flags a reader types.

:func:`parameters` turns the command-line flags that ``inspect --for llama.cpp`` prints
into the model and context parameters they set, as ``common/arg.cpp`` and
``common_context_params_to_llama`` (``common/common.cpp``) do at the vendored commit;
:class:`Session` loads a GGUF with them (CPU, float32 K and V cache, no flash attention,
so that the logits are float32 arithmetic throughout), decodes tokens at the positions
llama.cpp gives them and exposes the cache operations (``llama_memory_seq_add``,
``llama_memory_seq_div``, ``llama_memory_seq_rm``).
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

import numpy as np

#: Context flags → (field of llama_context_params, parser). ``--rope-scale N`` is
#: ``--rope-freq-scale 1/N`` (arg.cpp).
_CONTEXT_FLAGS = {
    "-c": ("n_ctx", int),
    "--rope-freq-base": ("rope_freq_base", float),
    "--rope-freq-scale": ("rope_freq_scale", float),
    "--rope-scale": ("rope_freq_scale", lambda v: 1.0 / float(v)),
    "--yarn-orig-ctx": ("yarn_orig_ctx", int),
    "--yarn-ext-factor": ("yarn_ext_factor", float),
    "--yarn-attn-factor": ("yarn_attn_factor", float),
    "--yarn-beta-fast": ("yarn_beta_fast", float),
    "--yarn-beta-slow": ("yarn_beta_slow", float),
}
_SCALING = {"none": 0, "linear": 1, "yarn": 2}  # LLAMA_ROPE_SCALING_TYPE_*
_KV_TYPES = {"int": 0, "float": 1}  # LLAMA_KV_OVERRIDE_TYPE_INT, _FLOAT


def _lib():
    import llama_cpp

    return llama_cpp


def parameters(args: list[str], arch: str) -> tuple[dict, list[tuple[str, str, float]]]:
    """The context fields and the ``--override-kv`` entries (key, type, value) these flags set.

    ``ARCH.`` in an override key is replaced by the GGUF's architecture ``arch``, as the
    reader is told to do. Any flag the harness does not know is an error, so that a new
    flag printed by the library cannot pass unrun.
    """
    context, overrides, i = {}, [], 0
    while i < len(args):
        flag = args[i]
        value = args[i + 1]
        if flag == "--override-kv":
            key, _, typed = value.partition("=")
            kind, _, number = typed.partition(":")
            if kind not in _KV_TYPES:
                raise ValueError(f"--override-kv {value!r}: only int and float are modelled")
            parse = int if kind == "int" else float
            overrides.append((key.replace("ARCH.", f"{arch}.", 1), kind, parse(number)))
        elif flag == "--rope-scaling":
            context["rope_scaling_type"] = _SCALING[value]
        elif flag in _CONTEXT_FLAGS:
            name, parse = _CONTEXT_FLAGS[flag]
            context[name] = parse(value)
        else:
            raise ValueError(f"flag {flag!r} is not modelled by the harness")
        i += 2
    return context, overrides


#: The log callback handed to llama.cpp, kept alive here (it must not be collected).
_LOG_SINK = []


def _start(lib) -> None:
    """Initialise llama.cpp once, its log sent to nowhere unless PE_LLAMA_LOG is set."""
    if _LOG_SINK:
        return
    _LOG_SINK.append(lib.llama_log_callback(lambda level, text, data: None))
    if not os.environ.get("PE_LLAMA_LOG"):
        lib.llama_log_set(_LOG_SINK[0], ctypes.c_void_p())
    lib.llama_backend_init()


class Session:
    """One model and one context, built from a GGUF and the flags printed for it."""

    def __init__(
        self, gguf: Path, args: list[str], arch: str, *, n_batch: int = 512, swa_full=False
    ):
        lib = self.lib = _lib()
        _start(lib)
        context, overrides = parameters(args, arch)
        model_params = lib.llama_model_default_params()
        self._overrides = None
        if overrides:
            table = (lib.llama_model_kv_override * (len(overrides) + 1))()
            for entry, (key, kind, number) in zip(table, overrides, strict=False):
                entry.key = key.encode()
                entry.tag = _KV_TYPES[kind]
                if kind == "int":
                    entry.value.val_i64 = number
                else:
                    entry.value.val_f64 = number
            model_params.kv_overrides = table  # the last entry, key "", ends the list
            self._overrides = table
        self.model = lib.llama_model_load_from_file(str(gguf).encode(), model_params)
        if not self.model:
            raise RuntimeError(f"llama.cpp could not load {gguf} with {args}")
        params = lib.llama_context_default_params()
        for name, value in context.items():
            setattr(params, name, value)
        params.n_batch = params.n_ubatch = n_batch
        params.n_threads = params.n_threads_batch = 2
        params.type_k = params.type_v = 0  # GGML_TYPE_F32
        params.flash_attn_type = 0  # LLAMA_FLASH_ATTN_TYPE_DISABLED
        params.n_seq_max = 1
        params.swa_full = swa_full  # --swa-full: a sliding-window cache as long as -c
        self.ctx = lib.llama_init_from_model(self.model, params)
        if not self.ctx:
            raise RuntimeError(f"llama.cpp could not make a context for {gguf} with {args}")
        vocab = lib.llama_model_get_vocab(self.model)
        self.n_vocab = lib.llama_vocab_n_tokens(vocab)
        self.memory = lib.llama_get_memory(self.ctx)

    def decode(self, tokens, positions) -> np.ndarray:
        """Decode ``tokens`` at ``positions`` (sequence 0); the logits of every token."""
        lib, n = self.lib, len(tokens)
        batch = lib.llama_batch_init(n, 0, 1)
        try:
            for i, (token, pos) in enumerate(zip(tokens, positions, strict=True)):
                batch.token[i] = int(token)
                batch.pos[i] = int(pos)
                batch.n_seq_id[i] = 1
                batch.seq_id[i][0] = 0
                batch.logits[i] = True
            batch.n_tokens = n
            status = lib.llama_decode(self.ctx, batch)
            if status != 0:
                raise RuntimeError(f"llama_decode returned {status} at positions {positions}")
            rows = [
                np.ctypeslib.as_array(lib.llama_get_logits_ith(self.ctx, i), (self.n_vocab,))
                for i in range(n)
            ]
            return np.array(rows, dtype=np.float64)
        finally:
            lib.llama_batch_free(batch)

    def seq_add(self, p0: int, p1: int, delta: int) -> None:
        """``llama_memory_seq_add``: cells in [p0, p1) move by ``delta`` (a K-shift)."""
        self.lib.llama_memory_seq_add(self.memory, 0, p0, p1, delta)

    def seq_div(self, p0: int, p1: int, d: int) -> None:
        """``llama_memory_seq_div``: cells in [p0, p1) get position ⌊p/d⌋."""
        self.lib.llama_memory_seq_div(self.memory, 0, p0, p1, d)

    def seq_rm(self, p0: int, p1: int) -> None:
        self.lib.llama_memory_seq_rm(self.memory, 0, p0, p1)

    def can_shift(self) -> bool:
        """``llama_memory_can_shift``: whether the cache accepts ``seq_add``'s K-shift."""
        return bool(self.lib.llama_memory_can_shift(self.memory))

    def pos_max(self) -> int:
        return int(self.lib.llama_memory_seq_pos_max(self.memory, 0))

    def close(self) -> None:
        if getattr(self, "ctx", None):
            self.lib.llama_free(self.ctx)
            self.ctx = None
        if getattr(self, "model", None):
            self.lib.llama_model_free(self.model)
            self.model = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
