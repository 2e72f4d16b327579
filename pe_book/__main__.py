"""``python -m pe_book``: the book's command line (see :mod:`pe_book.cli`)."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
