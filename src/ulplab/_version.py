"""ulplab's version, kept apart so that any module can name it without importing the package
face (``ulplab/__init__.py``)."""

__version__ = "0.1.0"
