"""The PDF of a vulnerability export (export_format=pdf), drawn with reportlab.

A title page (scope, requester, time, the filters applied), a summary (counts by severity and by
status, with a bar chart of the severities), then every vulnerability in a table (severity, status,
title, location, identifiers, detected at). Every page carries its number.

reportlab's built-in Helvetica covers Latin-1 and a few more characters; others are drawn as boxes.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from io import BytesIO
from typing import Any
from xml.sax.saxutils import escape

from reportlab.graphics.charts.barcharts import VerticalBarChart
from reportlab.graphics.shapes import Drawing
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import LongTable, PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from outpost_server.compat.ruby import ruby_time
from outpost_server.exports.csv_format import ExportVulnerability
from outpost_server.vulnerabilities.models import SEVERITIES, STATES

SEVERITY_COLORS = {"critical": "#8d1300", "high": "#dd2b0e", "medium": "#d99530", "low": "#bf9b2e",
                   "info": "#428fdc", "unknown": "#868686"}
TABLE_HEADERS = ("Severity", "Status", "Title", "Location", "Identifiers", "Detected at")


@dataclass
class ReportCover:
    """What the title page says."""

    scope: str  # e.g. "Project gitlab-org/gitlab"
    requester: str
    generated_at: dt.datetime
    filters: Mapping[str, Any] = field(default_factory=dict)
    report_data: Mapping[str, Any] = field(default_factory=dict)


def location_text(location: Mapping[str, Any]) -> str:
    """A vulnerability's location in a few words: file and line, image, or dependency."""
    parts = []
    if location.get("file"):
        line = location.get("start_line")
        parts.append(f"{location['file']}:{line}" if line else str(location["file"]))
    if location.get("image"):
        parts.append(str(location["image"]))
    dependency = location.get("dependency")
    if isinstance(dependency, Mapping):
        package = dependency.get("package") or {}
        name = package.get("name") if isinstance(package, Mapping) else None
        if name:
            parts.append(f"{name} {dependency.get('version', '')}".strip())
    return ", ".join(parts)


def identifiers_text(identifiers: Iterable[Mapping[str, Any]]) -> str:
    return ", ".join(str(identifier.get("name", "")) for identifier in identifiers if identifier.get("name"))


# A table row cannot split across pages, so a cell longer than a page fails the whole report (reportlab's
# LayoutError). At 7.5 pt in the narrowest free-text column (45 mm) this many characters take about 20
# lines, wide letters 32: a row always fits on a page. Longer text ends in an ellipsis.
MAX_CELL_CHARACTERS = 600
ELLIPSIS = "\u2026"


def _cell(text: str, style) -> Paragraph:
    if len(text) > MAX_CELL_CHARACTERS:
        text = text[:MAX_CELL_CHARACTERS - 1] + ELLIPSIS
    return Paragraph(escape(text), style)


def _summary_table(title: str, counts: Counter[str], keys: Iterable[str], styles) -> Table:
    rows = [[title, "Count"]] + [[key.capitalize(), str(counts.get(key, 0))] for key in keys]
    rows.append(["Total", str(sum(counts.values()))])
    table = Table(rows, colWidths=(45 * mm, 25 * mm))
    table.setStyle(TableStyle([
        ("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold"), ("FONTNAME", (0, -1), (-1, -1), "Helvetica-Bold"),
        ("GRID", (0, 0), (-1, -1), 0.5, colors.grey), ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
        ("ALIGN", (1, 0), (1, -1), "RIGHT"),
    ]))
    return table


def _severity_chart(counts: Counter[str]) -> Drawing:
    drawing = Drawing(160 * mm, 60 * mm)
    chart = VerticalBarChart()
    chart.x, chart.y, chart.width, chart.height = 15 * mm, 10 * mm, 135 * mm, 45 * mm
    chart.data = [[counts.get(severity, 0) for severity in SEVERITIES]]
    chart.categoryAxis.categoryNames = [severity.capitalize() for severity in SEVERITIES]
    chart.valueAxis.valueMin = 0
    chart.valueAxis.valueMax = max([1, *counts.values()])
    chart.valueAxis.valueStep = max(1, chart.valueAxis.valueMax // 5)
    for index, severity in enumerate(SEVERITIES):
        chart.bars[(0, index)].fillColor = colors.HexColor(SEVERITY_COLORS[severity])
    drawing.add(chart)
    return drawing


def _number_pages(canvas, document) -> None:
    canvas.saveState()
    canvas.setFont("Helvetica", 8)
    canvas.drawRightString(document.pagesize[0] - 15 * mm, 10 * mm, f"Page {document.page}")
    canvas.restoreState()


# The filters as the reader knows them (the names are the API's `filters` keys, kept as stored).
LIST_FILTER_LABELS = {"severity": "Only severities", "state": "Only statuses", "report_type": "Only report types",
                      "scanner": "Only scanners", "image": "Only container images", "project_id": "Only project IDs"}
REPORT_TYPE_NAMES = {"sast": "SAST", "dependency_scanning": "Dependency scanning",
                     "container_scanning": "Container scanning", "secret_detection": "Secret detection",
                     "dast": "DAST"}
BOOLEAN_FILTER_WORDS = {"has_resolution": "a resolution", "has_issues": "linked issues",
                        "has_merge_request": "a merge request", "has_remediations": "remediations"}


def filter_line(name: str, value: Any) -> tuple[str, str]:
    """One filter of the export for the title page: ("Only report types", "SAST, Secret detection")."""
    if name in BOOLEAN_FILTER_WORDS:
        return "Only", f"vulnerabilities {'with' if value else 'without'} {BOOLEAN_FILTER_WORDS[name]}"
    items = value if isinstance(value, list) else [value]
    names = REPORT_TYPE_NAMES if name == "report_type" else {}
    return (LIST_FILTER_LABELS.get(name, name.replace("_", " ").capitalize()),
            ", ".join(names.get(str(item), str(item)) for item in items))


def _cover(cover: ReportCover, styles) -> list:
    story: list = [Spacer(1, 40 * mm), Paragraph("Vulnerability report", styles["Title"]), Spacer(1, 10 * mm)]
    lines = [("Scope", cover.scope), ("Requested by", cover.requester),
             ("Generated at", ruby_time(cover.generated_at))]
    for key in ("dashboard_type", "full_path"):
        if cover.report_data.get(key):
            lines.append((key.replace("_", " ").capitalize(), str(cover.report_data[key])))
    lines.extend(filter_line(name, value) for name, value in sorted(cover.filters.items()))
    for label, value in lines:
        story.append(Paragraph(f"<b>{escape(label)}:</b> {escape(value)}", styles["Normal"]))
    return story


def render_pdf(cover: ReportCover, vulnerabilities: Iterable[ExportVulnerability],
               on_page: Callable[[], None] = lambda: None) -> bytes:
    """The whole report; the vulnerabilities are read once, and `on_page` is called as each page is laid
    out (a long report takes a while: 5,000 vulnerabilities about 12 s)."""
    styles = getSampleStyleSheet()
    # wordWrap CJK: a line may break inside a word, so a path or identifier without spaces wraps in its cell.
    small = styles["BodyText"].clone("Cell", fontSize=7.5, leading=9, wordWrap="CJK")
    rows: list[list[Any]] = [[_cell(header, small) for header in TABLE_HEADERS]]
    by_severity: Counter[str] = Counter()
    by_state: Counter[str] = Counter()
    for vulnerability in vulnerabilities:
        by_severity[vulnerability.severity] += 1
        by_state[vulnerability.state] += 1
        rows.append([_cell(vulnerability.severity.capitalize(), small), _cell(vulnerability.state, small),
                     _cell(vulnerability.title, small), _cell(location_text(vulnerability.location), small),
                     _cell(identifiers_text(vulnerability.identifiers), small),
                     _cell(ruby_time(vulnerability.detected_at), small)])
    story = _cover(cover, styles)
    # The two counts side by side, so the chart fits on the summary's page.
    counts = Table([[_summary_table("Severity", by_severity, SEVERITIES, styles),
                     _summary_table("Status", by_state, STATES, styles)]], hAlign="LEFT")
    story += [PageBreak(), Paragraph("Summary", styles["Heading1"]), counts, Spacer(1, 4 * mm),
              Paragraph("Vulnerabilities by severity", styles["Heading2"]), _severity_chart(by_severity),
              PageBreak(), Paragraph("Vulnerabilities", styles["Heading1"])]
    if len(rows) == 1:
        story.append(Paragraph("No vulnerabilities match this export.", styles["Normal"]))
    else:
        table = LongTable(rows, repeatRows=1, colWidths=(18 * mm, 20 * mm, 80 * mm, 70 * mm, 45 * mm, 32 * mm))
        table.setStyle(TableStyle([
            ("GRID", (0, 0), (-1, -1), 0.25, colors.grey), ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ]))
        story.append(table)
    output = BytesIO()
    document = SimpleDocTemplate(output, pagesize=landscape(A4), title="Vulnerability report",
                                 leftMargin=12 * mm, rightMargin=12 * mm, topMargin=12 * mm, bottomMargin=16 * mm)

    def page_done(canvas, page_document) -> None:
        _number_pages(canvas, page_document)
        on_page()

    document.build(story, onFirstPage=page_done, onLaterPages=page_done)
    return output.getvalue()
