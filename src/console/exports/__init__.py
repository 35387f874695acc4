"""The vulnerability exports tab.

The package imports nothing itself: the menus read its ``actions`` module without building the tab.
"""
