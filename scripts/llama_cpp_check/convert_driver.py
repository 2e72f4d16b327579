"""Run llama.cpp's ``convert_hf_to_gguf.py`` on tiny models that have no tokenizer.

    PE_CONVERT_JOBS='[["MODEL_DIR", "OUT.gguf"], …]' python convert_driver.py TREE

``TREE`` holds the converter (``convert_hf_to_gguf.py``, ``conversion/``, ``gguf-py/``)
of the llama.cpp commit that was built. The one change: the model class's ``set_vocab``
becomes the converter's own ``_set_vocab_none`` (no tokenizer files exist) followed by
``{arch}.vocab_size``, where llama.cpp reads the vocabulary's size without a token list. With
``PE_CONVERT_PERMUTE=0`` the llama family's permutation of q and k is skipped.
"""

import json
import os
import sys

tree = sys.argv[1]
sys.path.insert(0, tree)
import convert_hf_to_gguf as converter  # noqa: E402

_get_model_class = converter.get_model_class


def _no_tokenizer(self):
    self._set_vocab_none()
    # with no token list, llama.cpp takes the vocabulary's size from this key
    self.gguf_writer.add_vocab_size(self.hparams["vocab_size"])


def _without_vocabulary(*args, **kwargs):
    cls = _get_model_class(*args, **kwargs)
    cls.set_vocab = _no_tokenizer
    impl = getattr(cls, "Ministral3Model", None)  # Mistral3Model hands its steps to impl
    if impl is not None:
        impl.set_vocab = _no_tokenizer
    return cls


converter.get_model_class = _without_vocabulary
if os.environ.get("PE_CONVERT_PERMUTE") == "0":
    from conversion.llama import LlamaModel

    LlamaModel.permute = staticmethod(lambda weights, n_head, n_head_kv: weights)

for model, out in json.loads(os.environ["PE_CONVERT_JOBS"]):
    sys.argv = ["convert_hf_to_gguf.py", model, "--outfile", out, "--outtype", "f32"]
    converter.main()
