"""``python -m pe_explained``: the command line of :mod:`pe_explained.cli`."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
