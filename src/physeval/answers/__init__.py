"""Reading answers out of responses: final-answer extraction, quantities and units, LaTeX."""

from physeval.answers.extract import Extraction, extract_final_answer, find_boxed, strip_reasoning

__all__ = ["Extraction", "extract_final_answer", "find_boxed", "strip_reasoning"]
