"""`python -m checker.cli_main` runs the CLI (used by benchmarks and when no console script is installed)."""

from checker.cli import main

if __name__ == "__main__":
    main()
