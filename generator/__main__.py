import sys

try:
    from .cli import main
except ModuleNotFoundError as err:  # run with a Python that lacks the dependencies
    print(f"error: {err.name} is not installed for {sys.executable}; run `make setup`, then use "
          ".venv/bin/python (or `. .venv/bin/activate`)", file=sys.stderr)
    sys.exit(2)

sys.exit(main())
