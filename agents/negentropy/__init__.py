"""The Negentropy agent package, loadable by `adk web agents` and `adk run agents/negentropy`."""
from . import agent as agent
