"""Extractive answers from tool results (the offline model's replies; an LLM gets the same tool results)."""
from agents.answer.compose import compose_global_answer, compose_papers_answer, compose_search_answer
from agents.answer.evidence import Evidence, select_evidence

__all__ = ["Evidence", "compose_global_answer", "compose_papers_answer", "compose_search_answer", "select_evidence"]
