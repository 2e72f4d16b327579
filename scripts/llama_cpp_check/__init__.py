"""llama.cpp itself, run on tiny models: do the flags the book prints give a config's positions?

    python3 scripts/book.py llama-cpp            # build llama.cpp (once), run, write results
    python3 scripts/book.py llama-cpp --check    # run and compare with the stored results

``install`` builds ``llama-cpp-python`` (which vendors llama.cpp) from source into the
book's ``.venv`` and keeps the same tree's converter beside it; ``settings`` lists the
position settings, one tiny transformers model each; ``models`` builds, converts and
runs them in transformers; ``engine`` runs a GGUF in llama.cpp with the flags that
``pe_explained.llama_cpp_arguments`` prints; ``compare`` holds the two side by side and
measures what llama.cpp's cache operations do to cached keys; ``run`` writes
``docs/data/runtimes/llama_cpp.json``, which chapter 26 reads (the book never builds
llama.cpp). ``tests/test_llama_cpp.py`` runs the same comparisons where llama.cpp is
installed and otherwise checks that the stored results are current.
"""
