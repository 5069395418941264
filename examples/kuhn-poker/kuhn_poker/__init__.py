"""Kuhn poker for Arena: a game shipped as its own package (``pip install examples/kuhn-poker``)."""

from .game import KuhnPoker

__all__ = ["KuhnPoker"]
