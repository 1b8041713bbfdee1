"""The oracle: `adspec check` for other tools' derivative code, and random-program campaigns.

harness.py compiles and runs procedures through C drivers; the checks are built on it."""
