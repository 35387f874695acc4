"""The vulnerability exports tab."""

from console.exports.views import ExportsTab

__all__ = ["ExportsTab"]
