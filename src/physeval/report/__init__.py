"""Reporting: terminal tables, run comparison and the HTML reports (``summary.json``: :mod:`physeval.summary`)."""

from physeval.report.compare import compare_runs, comparison_table
from physeval.report.html import (
           MULTI_REPORT_NAME,
           REPORT_NAME,
           write_html_report,
           write_multi_report,
)
from physeval.report.tables import print_summary

__all__ = ["MULTI_REPORT_NAME", "REPORT_NAME", "compare_runs", "comparison_table", "print_summary",
           "write_html_report", "write_multi_report"]
