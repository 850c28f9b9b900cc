"""Reporting: summary.json, terminal tables and the HTML report."""

from physeval.report.summary import SUMMARY_NAME, build_summary, print_summary, read_summary, write_summary

__all__ = ["SUMMARY_NAME", "build_summary", "print_summary", "read_summary", "write_summary"]
