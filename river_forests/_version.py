"""The package's version (`river_forests.__version__`), in a module of its own so that the
package's modules can name it without importing the package."""

__version__ = "0.2.0"
