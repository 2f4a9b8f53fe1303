"""Demo rubric work: revisions in every state on the demo (or real) dataset. Idempotent."""

from __future__ import annotations

from typing import TYPE_CHECKING

from heartbench_core.models import Criterion
from rubrics import services
from rubrics.models import CriterionRevision

if TYPE_CHECKING:
    from heartbench_core.demo import DemoContext

DEMO_REASON = "（演示）"


def seed(*, context: DemoContext) -> None:
    version = context.version
    users = context.users
    author, reviewers = users["author"], [users[f"reviewer{i}"] for i in range(1, 5)]
    if CriterionRevision.objects.filter(dataset=version.dataset, reason__startswith=DEMO_REASON).exists():
        return
    items = list(version.items.order_by("position")[:3])
    if len(items) < 3:
        return
    firsts = [Criterion.objects.select_related("lineage").filter(item=item).order_by("position").first() for item in items]
    criteria = [c for c in firsts if c is not None]
    if len(criteria) < 3:  # an item without criteria: nothing to revise there
        return

    def edit(
        c: Criterion, *, reason: str, text: str | None = None, weight: int | None = None, meaning_changed: bool = False
    ) -> CriterionRevision:
        """A revision of `c` that keeps whatever it is not told to change."""
        return services.edit_criterion(
            author=author,
            key=c.lineage_id,
            base_revision=c.lineage.current_revision,
            text=c.text if text is None else text,
            ability=c.ability,
            weight=c.weight if weight is None else weight,
            reason=reason,
            meaning_changed=meaning_changed,
        )

    # 1. A wording fix, approved by the whole panel (waiting to be published).
    rev = edit(criteria[0], text=criteria[0].text.rstrip("。") + "。", reason=DEMO_REASON + "统一句末标点")
    services.submit_revision(revision=rev, user=author)
    for reviewer in reviewers[: version.dataset.review_panel_size]:
        services.review_revision(revision=rev, reviewer=reviewer, verdict="approve")
    # 2. A reweighting under review: two of the panel have approved.
    weight = criteria[1].weight
    new_weight = (weight + 1 if weight < 10 else weight - 1) if weight else 2
    rev = edit(criteria[1], weight=new_weight, reason=DEMO_REASON + "该行为在咨询中更关键")
    services.submit_revision(revision=rev, user=author)
    for reviewer in reviewers[:2]:
        services.review_revision(revision=rev, reviewer=reviewer, verdict="approve")
    services.comment_on_revision(revision=rev, author=reviewers[2], body="能否给出依据？")
    # 3. A rejected rewording, sent back with the reviewer's comment.
    rev = edit(criteria[2], text=criteria[2].text + "（含具体细节）", meaning_changed=True, reason=DEMO_REASON + "要求更具体")
    services.submit_revision(revision=rev, user=author)
    services.review_revision(revision=rev, reviewer=reviewers[3], verdict="reject", comment="改动改变了考察点，请先讨论")
    # 4. A proposed new criterion, still a draft.
    services.add_criterion(
        author=author,
        dataset=version.dataset,
        question_id=items[0].question_id,
        text="AI邀请用户描述此刻身体上的感受",
        ability="情绪感知",
        weight=2,
        reason=DEMO_REASON + "补充躯体感受",
    )
    context.log.append("rubric revisions: one approved, one under review, one rejected, one draft addition")
