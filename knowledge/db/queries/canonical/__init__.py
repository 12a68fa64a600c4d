"""THE data-access module of the federated canonical layer, one module a table family: canonical entities,
aliases, the review queue, durable decisions, bridges; all re-exported here (``canonical as q``).

Permission layer 2 (docs/design.md section 2): every function that reads ``kg_entity_alias`` or the bridge tables
takes a corpus filter and raises PermissionError when it is missing or holds no valid corpus id; the filter
is applied inside the SQL. Row-level security on the same tables is the defense in depth.
"""
from knowledge.db.queries.canonical.corpus_filter import (  # noqa: F401
    require_corpus_filter,
)
from knowledge.db.queries.canonical.centroid_index import (  # noqa: F401
    CentroidIndexState,
    add_unindexed_centroids,
    count_centroids_by_index_state,
    lock_centroid_index,
    rebuild_centroid_index,
)
from knowledge.db.queries.canonical.entities import (  # noqa: F401
    NEAREST_CANDIDATES,
    Nearest,
    NewCanonical,
    delete_app_scope_canonicals,
    insert_canonical,
    insert_canonicals,
    lock_app_scope,
    refresh_canonicals,
    retype_canonical,
    select_app_corpus_ids,
    select_canonical_ids_by_names,
    select_canonicals_by_reference,
    select_canonicals_needing_refresh,
    select_nearest_canonicals_many,
    select_searchable_types,
)
from knowledge.db.queries.canonical.aliases import (  # noqa: F401
    LINK_METHODS,
    LinkableEntity,
    NewAlias,
    count_links_by_method,
    delete_aliases,
    insert_aliases,
    move_aliases,
    select_alias_of_entity,
    select_canonical_ids_of_corpora,
    select_entities_to_link,
    select_entity_ids_by_name,
    select_layer_summary,
    select_members,
    select_seconds_since_chunks_landed,
    touch_aliases,
)
from knowledge.db.queries.canonical.build_lag import (  # noqa: F401
    insert_build_lag,
    select_build_lag_percentiles,
)
from knowledge.db.queries.canonical.reviews import (  # noqa: F401
    NewReview,
    count_pending_reviews,
    delete_pending_reviews_of_entities,
    insert_reviews,
    repoint_review_candidates,
    resolve_review,
    select_review,
    select_reviews,
)
from knowledge.db.queries.canonical.decisions import (  # noqa: F401
    Decision,
    insert_rejection,
    select_decisions,
    select_rejections,
    upsert_decisions,
)
from knowledge.db.queries.canonical.bridges import (  # noqa: F401
    EntityBridge,
    count_bridges_by_type,
    rebuild_bridges,
    select_bridges,
    select_bridges_from_entities,
)
