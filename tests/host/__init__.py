"""The host tests (no guest boots), run as a package: tests/run.py
discovers them; alone, from the top of the tree,

    python3 -m unittest tests/host/test_screenreader.py -v
    python3 -m unittest discover -s tests/host -t tests

The package's entry puts tests/lib, the shared helpers some of them test
(screenreader, panic_path), on the import path; no test module does."""
import os
import sys

LIB = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib")
if LIB not in sys.path:
    sys.path.insert(0, LIB)
