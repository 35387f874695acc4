"""The error tracking tab: errors of a project, their stack traces, settings and client keys.

The package imports nothing itself: the menus read its ``actions`` module without building the tab.
"""
