"""Reporting: summary.json, terminal tables, run comparison and the HTML reports."""

from physeval.report.compare import compare_runs, comparison_table
from physeval.report.html import (
           MULTI_REPORT_NAME,
           REPORT_NAME,
           write_html_report,
           write_multi_report,
)
from physeval.report.summary import (
           SUMMARY_NAME,
           build_summary,
           print_summary,
           read_summary,
           write_summary,
)

__all__ = ["MULTI_REPORT_NAME", "REPORT_NAME", "SUMMARY_NAME", "build_summary", "compare_runs", "comparison_table",
           "print_summary", "read_summary", "write_html_report", "write_multi_report", "write_summary"]
