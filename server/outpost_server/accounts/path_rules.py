"""GitLab's rules for usernames and namespace and project paths (Gitlab::PathRegex, Gitlab::Regex and the
Namespace, User and Project validations), with GitLab's messages.

A path is ASCII letters and digits, with single '_', '-' or '.' between them: it starts and ends with a
letter or digit, never has two special characters in a row, and never ends in '.git' or '.atom'. Words
that GitLab's own routes use are reserved: at the top level (usernames and top-level groups), below it
(subgroups), and for projects.
"""

from __future__ import annotations

import re

# Gitlab::Regex.oci_repository_path_regex and its message, checked when a path is set or changed.
_OCI_PATH = re.compile(r"[a-zA-Z0-9]+(?:[._-][a-zA-Z0-9]+)*")
OCI_PATH_MESSAGE = ("can only include non-accented letters, digits, '_', '-' and '.'. It must not start with "
                    "'-', '_', or '.', nor end with '-', '_', '.', '.git', or '.atom'.")
# Gitlab::PathRegex's NAMESPACE_FORMAT_REGEX and PROJECT_PATH_FORMAT_REGEX (255 is Namespace::URL_MAX_LENGTH).
_NAMESPACE_FORMAT = re.compile(r"(?:[a-zA-Z0-9_.][a-zA-Z0-9_.-]{0,254}[a-zA-Z0-9_-]|[a-zA-Z0-9_])(?<!\.git)(?<!\.atom)")
_PROJECT_FORMAT = re.compile(r"[a-zA-Z0-9_.][a-zA-Z0-9_.-]{0,254}(?<!\.git)(?<!\.atom)")
NAMESPACE_FORMAT_MESSAGE = ("can contain only letters, digits, '_', '-' and '.'. "
                            "Cannot start with '-' or end in '.', '.git' or '.atom'.")
PROJECT_FORMAT_MESSAGE = ("can contain only letters, digits, '_', '-' and '.'. "
                          "Cannot start with '-', end in '.git' or end in '.atom'")
MAX_PATH_LENGTH = 255
# Namespace#enforce_minimum_path_length?: a username or group path set or changed has at least 2 characters.
MIN_NAMESPACE_PATH_LENGTH = 2

# Gitlab::PathRegex::TOP_LEVEL_ROUTES: not a username or a top-level group's path.
TOP_LEVEL_ROUTES = frozenset((
    "-", ".well-known", "404.html", "422.html", "500.html", "502.html", "503.html", "admin", "api",
    "apple-touch-icon.png", "assets", "dashboard", "deploy.html", "explore", "favicon.ico", "favicon.png",
    "groups", "health_check", "help", "import", "jwt", "login", "o", "oauth", "profile", "projects", "public",
    "robots.txt", "s", "search", "sitemap", "sitemap.xml", "sitemap.xml.gz", "slash-command-logo.png",
    "snippets", "unsubscribes", "uploads", "users", "v2"))
# Gitlab::PathRegex::PROJECT_WILDCARD_ROUTES (ILLEGAL_PROJECT_PATH_WORDS; with GROUP_ROUTES, which is
# only "-", ILLEGAL_GROUP_PATH_WORDS for subgroups). The entries with a '/' can never be one path.
PROJECT_WILDCARD_ROUTES = frozenset((
    "-", "badges", "blame", "blob", "builds", "commits", "create", "create_dir", "edit", "files", "find_file",
    "new", "preview", "raw", "refs", "tree", "update", "wikis"))


def _length_errors(path: str, minimum: int) -> list[str]:
    if len(path) > MAX_PATH_LENGTH:
        return [f"is too long (maximum is {MAX_PATH_LENGTH} characters)"]
    if len(path) < minimum:
        return [f"is too short (minimum is {minimum} characters)"]
    return []


def namespace_path_errors(path: str, *, top_level: bool) -> list[str]:
    """What GitLab says of a username or a group's path being set, in the order it says it; [] if valid."""
    errors = _length_errors(path, MIN_NAMESPACE_PATH_LENGTH)
    if not _OCI_PATH.fullmatch(path):
        errors.append(OCI_PATH_MESSAGE)
    if not _NAMESPACE_FORMAT.fullmatch(path):
        errors.append(NAMESPACE_FORMAT_MESSAGE)
    elif path.lower() in (TOP_LEVEL_ROUTES if top_level else PROJECT_WILDCARD_ROUTES):
        errors.append(f"{path} is a reserved name")
    return errors


def project_path_errors(path: str) -> list[str]:
    """What GitLab says of a project's path being set (ProjectPathValidator, then the OCI format); [] if valid."""
    errors = _length_errors(path, 1)
    if not _PROJECT_FORMAT.fullmatch(path):
        errors.append(PROJECT_FORMAT_MESSAGE)
    elif path.lower() in PROJECT_WILDCARD_ROUTES:
        errors.append(f"{path} is a reserved name")
    if not _OCI_PATH.fullmatch(path):
        errors.append(OCI_PATH_MESSAGE)
    return errors
