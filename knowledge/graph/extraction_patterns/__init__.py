"""Word lists, gazetteers and precompiled regexes for the rule-based entity/relation extractor.

Everything here is static data so that the ``extraction`` package holds only logic; one module a kind
(``english``, ``relations``, ``chinese``, ``cjk``), all re-exported here.  Gazetteer keys are ``normalize_name`` keys (case-folded,
spacing/punctuation and legal suffixes removed).
"""  # noqa: E501
from knowledge.graph.extraction_patterns.chinese import *  # noqa: F401,F403
from knowledge.graph.extraction_patterns.cjk import CJK, CJK_RE  # noqa: F401
from knowledge.graph.extraction_patterns.english import *  # noqa: F401,F403
from knowledge.graph.extraction_patterns.relations import *  # noqa: F401,F403
