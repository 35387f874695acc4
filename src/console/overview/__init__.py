"""The first tab: what needs attention on the connected server."""

from console.overview.view import OverviewTab

__all__ = ["OverviewTab"]
