"""Reporting: summary.json, terminal tables, run comparison and the HTML report."""

from physeval.report.compare import compare_runs, comparison_table
from physeval.report.html import REPORT_NAME, write_html_report
from physeval.report.summary import SUMMARY_NAME, build_summary, print_summary, read_summary, write_summary

__all__ = ["REPORT_NAME", "SUMMARY_NAME", "build_summary", "compare_runs", "comparison_table", "print_summary",
           "read_summary", "write_html_report", "write_summary"]
