"""THE permission table of the platform: every URL, every method, which roles may use it.

Keys are URL names (namespaced for pages); a URL whose name is missing or shared is keyed by
its route. Each entry maps an HTTP method to the roles allowed to use it; every other role,
and every method not listed, must be denied (403, 404 where existence is hidden, 405, 401,
or a redirect to the login page). Roles, as the matrix logs in:

- admin, author (rubric author), reviewer (senior reviewer), outsider (no role), anonymous;
- expert: the expert who owns the fixture world's assignment;
- other_expert: another expert of the same campaign, who must not reach that assignment.

HEAD is allowed to exactly the roles allowed GET, unless an entry declares it. OPTIONS is
allowed to nobody unless declared: the API answers it 405 (no metadata: the OpenAPI schema
describes every endpoint, to those who may read it), after the same permission check as the
other methods.

Adding a URL to the project without declaring it here fails the matrix, naming the URL.
"""

ADMIN, AUTHOR, REVIEWER = "admin", "author", "reviewer"
EXPERT, OTHER_EXPERT, OUTSIDER, ANONYMOUS = "expert", "other_expert", "outsider", "anonymous"

STAFF = (ADMIN, AUTHOR, REVIEWER)
EXPERTS = (EXPERT, OTHER_EXPERT)
OWNER = (EXPERT,)  # only the expert whose assignment it is; others get 404
WITH_A_ROLE = (*STAFF, *EXPERTS)
EVERYONE = (*WITH_A_ROLE, OUTSIDER, ANONYMOUS)
SCORES = (ADMIN, AUTHOR)  # judge verdicts and leaderboards: never experts, not reviewers
GOLD = (ADMIN, REVIEWER)  # adjudication of the golden standard
FAQ_WRITERS = (AUTHOR, REVIEWER)  # the library's FAQ entries
CASE_WRITERS = (ADMIN, REVIEWER)  # the library's cases

# Walked separately: the Django admin (superusers and is_staff users only).
SKIP_PREFIXES = ("admin/",)

TABLE: dict[str, dict[str, tuple[str, ...]]] = {
    # Entry points: home routes each role to its pages; outsiders see only "ask for access".
    "home": {"GET": EVERYONE},
    # Django's FormView treats PUT as POST; its class views answer OPTIONS with their Allow header only.
    "login": {"GET": EVERYONE, "POST": EVERYONE, "PUT": EVERYONE, "OPTIONS": EVERYONE},
    "logout": {"POST": EVERYONE, "OPTIONS": EVERYONE},
    # Setting a password from a reset link (restored users): the link itself is the credential.
    "password_reset_confirm": {"GET": EVERYONE, "POST": EVERYONE},
    "password_reset_complete": {"GET": EVERYONE},
    # The header's language switcher, on every page including the login page.
    "set_language": {"POST": EVERYONE},
    # The scripts' translations (djangojs), loaded as a file by every page, the login page included.
    "javascript-catalog": {"GET": EVERYONE, "OPTIONS": EVERYONE},
    # API tokens (admins issue and revoke).
    "tokens": {"GET": (ADMIN,)},
    "tokens-issue": {"POST": (ADMIN,)},
    "tokens-revoke": {"POST": (ADMIN,)},
    "api-token-list": {"GET": (ADMIN,), "POST": (ADMIN,)},
    "api-token-detail": {"GET": (ADMIN,), "DELETE": (ADMIN,)},
    # People (admins invite, change roles, deactivate); an invitee sets a password from their link.
    "invite_accept": {"GET": EVERYONE, "POST": EVERYONE},
    "people:list": {"GET": (ADMIN,)},
    "people:invite": {"GET": (ADMIN,), "POST": (ADMIN,)},
    "people:person": {"GET": (ADMIN,)},
    "people:roles": {"POST": (ADMIN,)},
    "people:deactivate": {"POST": (ADMIN,)},
    "people:reactivate": {"POST": (ADMIN,)},
    "people:resend": {"POST": (ADMIN,)},
    "person-list": {"GET": (ADMIN,), "POST": (ADMIN,)},
    "person-detail": {"GET": (ADMIN,)},
    "person-roles": {"POST": (ADMIN,)},
    "person-deactivate": {"POST": (ADMIN,)},
    "person-reactivate": {"POST": (ADMIN,)},
    "person-resend-invite": {"POST": (ADMIN,)},
    "api-schema": {"GET": STAFF},
    "api-docs": {"GET": STAFF},
    # Core pages.
    "core:datasets": {"GET": STAFF},
    "core:dataset": {"GET": STAFF},
    "core:diff": {"GET": STAFF},
    "core:version": {"GET": STAFF},
    "core:item": {"GET": STAFF},
    "core:leaderboard": {"GET": SCORES},
    "core:leaderboard-model": {"GET": SCORES},
    # Core API.
    "api/v1/": {"GET": WITH_A_ROLE},
    "api-import-heartbench": {"POST": (ADMIN,)},
    "api-import-responses": {"POST": (ADMIN,)},
    "api-import-verdicts": {"POST": SCORES},
    "api-scores": {"GET": SCORES},
    "dataset-list": {"GET": STAFF},
    "dataset-detail": {"GET": STAFF},
    "version-list": {"GET": STAFF},
    "version-detail": {"GET": STAFF},
    "version-diff": {"GET": STAFF},
    "version-export": {"GET": STAFF},
    "item-list": {"GET": STAFF},
    "item-detail": {"GET": STAFF},
    "model-list": {"GET": STAFF},
    "model-detail": {"GET": STAFF},
    "response-list": {"GET": STAFF},
    "response-detail": {"GET": STAFF},
    "judge-run-list": {"GET": SCORES},
    "judge-run-detail": {"GET": SCORES},
    "judge-run-verdicts": {"GET": SCORES},
    # Rubric pages.
    "rubrics:index": {"GET": STAFF},
    "rubrics:review": {"GET": (REVIEWER,)},
    "rubrics:audit": {"GET": STAFF},
    "rubrics:revision": {"GET": STAFF},
    "rubrics:submit": {"POST": (AUTHOR,)},
    "rubrics:review-revision": {"POST": (REVIEWER,)},
    "rubrics:comment": {"POST": STAFF},
    "rubrics:criterion": {"GET": STAFF},
    "rubrics:edit": {"GET": (AUTHOR,), "POST": (AUTHOR,)},
    "rubrics:retire": {"POST": (AUTHOR,)},
    "rubrics:flag": {"POST": STAFF},
    "rubrics:history": {"GET": STAFF},
    "rubrics:resolve": {"POST": (ADMIN, AUTHOR)},
    "rubrics:dataset": {"GET": STAFF},
    "rubrics:publish": {"POST": (ADMIN, AUTHOR)},
    "rubrics:stale": {"GET": STAFF},
    "rubrics:editor": {"GET": STAFF},
    "rubrics:add": {"POST": (AUTHOR,)},
    # Rubric API.
    "api/v1/rubrics/": {"GET": WITH_A_ROLE},
    "rubrics-api-stale": {"GET": STAFF},
    "rubrics-api-quality": {"GET": STAFF},
    "rubrics-api-worklist": {"GET": STAFF},
    "rubrics-api-flag": {"POST": STAFF},
    "rubrics-api-publish": {"POST": (ADMIN, AUTHOR)},
    "rubrics-criterion-list": {"GET": STAFF},
    "rubrics-criterion-detail": {"GET": STAFF},
    "rubrics-revision-list": {"GET": STAFF, "POST": (AUTHOR,)},
    "rubrics-revision-detail": {"GET": STAFF},
    "rubrics-revision-approve": {"POST": (REVIEWER,)},
    "rubrics-revision-comments": {"GET": STAFF, "POST": STAFF},
    "rubrics-revision-reject": {"POST": (REVIEWER,)},
    "rubrics-revision-submit": {"POST": (AUTHOR,)},
    "rubrics-audit-list": {"GET": STAFF},
    "rubrics-audit-detail": {"GET": STAFF},
    # The blind workspace (pages): an expert reaches only their own assignments.
    "annotation:home": {"GET": EXPERTS},
    "annotation:next_response": {"POST": EXPERTS},
    "annotation:judge": {"GET": OWNER},
    "annotation:judge_draft": {"POST": OWNER},
    "annotation:judge_reclaim": {"POST": OWNER},
    "annotation:judge_time": {"POST": OWNER},
    "annotation:judge_submit": {"POST": OWNER},
    "annotation:judge_unclear": {"POST": OWNER},
    "annotation:judge_problem": {"POST": OWNER},
    "annotation:judge_correction": {"GET": OWNER, "POST": OWNER},
    "annotation:discussion": {"GET": OWNER},
    "annotation:discussion_comment": {"POST": OWNER},
    "annotation:discussion_vote": {"POST": OWNER},
    # The judging page's library panel, its entries and "did this help?": on the expert's own assignment.
    "annotation:judge_library": {"GET": OWNER},
    "annotation:judge_library_entry": {"GET": OWNER},
    "annotation:judge_library_helped": {"POST": OWNER},
    "annotation:corrections": {"GET": (ADMIN,)},
    "annotation:decide_correction": {"POST": (ADMIN,)},
    # The blind workspace (API).
    "api-ws-assignments": {"GET": EXPERTS},
    "api-ws-next": {"POST": EXPERTS},
    "api-ws-assignment": {"GET": OWNER},
    "api-ws-draft": {"POST": OWNER},
    "api-ws-reclaim": {"POST": OWNER},
    "api-ws-campaign": {"GET": EXPERTS},
    "api-ws-time": {"POST": OWNER},
    "api-ws-submit": {"POST": OWNER},
    "api-ws-unclear": {"POST": OWNER},
    "api-ws-problem": {"POST": OWNER},
    "api-ws-corrections": {"GET": OWNER, "POST": OWNER},
    "api-ws-discussion": {"GET": OWNER, "POST": OWNER},
    "api-ws-discussion-votes": {"POST": OWNER},
    "api-ws-library": {"GET": OWNER},
    "api-ws-library-opens": {"POST": OWNER},
    "api-ws-admin-corrections": {"GET": (ADMIN,)},
    "api-ws-decide-correction": {"POST": (ADMIN,)},
    # The knowledge library (pages): everyone with a role reads (experts: published FAQ entries, the cases allowed them);
    # rubric authors and senior reviewers write FAQ entries, another of them reviews; senior reviewers and admins write cases.
    "annotation:library": {"GET": WITH_A_ROLE},
    "annotation:faq_review_queue": {"GET": FAQ_WRITERS},
    "annotation:faq_create": {"GET": FAQ_WRITERS, "POST": FAQ_WRITERS},
    "annotation:faq": {"GET": WITH_A_ROLE},
    "annotation:faq_edit": {"GET": (AUTHOR,), "POST": (AUTHOR,)},  # the world's entry is the author's
    "annotation:faq_submit": {"POST": (AUTHOR,)},
    "annotation:faq_review": {"POST": (REVIEWER,)},  # never by its author
    "annotation:faq_retire": {"POST": FAQ_WRITERS},
    "annotation:faq_revise": {"POST": FAQ_WRITERS},
    "annotation:case_create": {"GET": CASE_WRITERS, "POST": CASE_WRITERS},
    "annotation:case": {"GET": WITH_A_ROLE},
    "annotation:case_edit": {"GET": CASE_WRITERS, "POST": CASE_WRITERS},
    "annotation:case_publish": {"POST": CASE_WRITERS},
    "annotation:case_retire": {"POST": CASE_WRITERS},
    "annotation:dataset_guidelines": {"GET": STAFF, "POST": (ADMIN, AUTHOR)},
    "annotation:library_export": {"GET": STAFF},
    "annotation:library_import": {"GET": (ADMIN,), "POST": (ADMIN,)},
    # The knowledge library (API).
    "api-library-search": {"GET": WITH_A_ROLE},
    "api-library-faq-list": {"GET": WITH_A_ROLE, "POST": FAQ_WRITERS},
    "api-library-faq": {"GET": WITH_A_ROLE, "PATCH": (AUTHOR,)},
    "api-library-faq-submit": {"POST": (AUTHOR,)},
    "api-library-faq-review": {"POST": (REVIEWER,)},
    "api-library-faq-retire": {"POST": FAQ_WRITERS},
    "api-library-faq-revise": {"POST": FAQ_WRITERS},
    "api-library-case-list": {"GET": WITH_A_ROLE, "POST": CASE_WRITERS},
    "api-library-case": {"GET": WITH_A_ROLE, "PATCH": CASE_WRITERS},
    "api-library-case-publish": {"POST": CASE_WRITERS},
    "api-library-case-retire": {"POST": CASE_WRITERS},
    "api-library-guidelines": {"GET": STAFF, "POST": (ADMIN, AUTHOR)},
    "api-library-export": {"GET": STAFF},
    "api-library-import": {"POST": (ADMIN,)},
    # Campaign management (pages): admins only; an expert reaches only their own profile and calibration feedback.
    "annotation:campaigns": {"GET": (ADMIN,)},
    "annotation:campaign_create": {"GET": (ADMIN,), "POST": (ADMIN,)},
    "annotation:calibration_create": {"GET": (ADMIN,), "POST": (ADMIN,)},
    "annotation:gold_set_create": {"GET": (ADMIN,), "POST": (ADMIN,)},
    "annotation:campaign": {"GET": (ADMIN,)},
    "annotation:campaign_bulk_assign": {"POST": (ADMIN,)},
    "annotation:campaign_status": {"POST": (ADMIN,)},
    "annotation:campaign_edit": {"GET": (ADMIN,), "POST": (ADMIN,)},
    "annotation:campaign_payments_page": {"GET": (ADMIN,)},
    "annotation:pay_decision": {"POST": (ADMIN,)},
    "annotation:pay_policy": {"POST": (ADMIN,)},
    "annotation:campaign_payments": {"GET": (ADMIN,)},
    "annotation:campaign_assignments": {"GET": (ADMIN,)},
    "annotation:assignment_release": {"POST": (ADMIN,)},
    "annotation:experts": {"GET": (ADMIN,)},
    "annotation:dual_roles": {"GET": (ADMIN,)},
    "annotation:expert": {"GET": (ADMIN,), "POST": (ADMIN,)},
    "annotation:alerts": {"GET": (ADMIN,)},
    "annotation:alert_resolve": {"POST": (ADMIN,)},
    # The admins' "needs action" home, replying to an expert's report, the digest opt-in; an expert's own reports.
    "annotation:needs_action": {"GET": (ADMIN,)},
    "annotation:digest_opt_in": {"POST": (ADMIN,)},
    "annotation:report": {"GET": (ADMIN,), "POST": (ADMIN,)},
    "annotation:my_reports": {"GET": EXPERTS},
    "api-needs-action": {"GET": (ADMIN,)},
    "api-report-resolve": {"POST": (ADMIN,)},
    "api-my-reports": {"GET": EXPERTS},
    "annotation:profile": {"GET": EXPERTS, "POST": EXPERTS},
    "annotation:calibration_feedback": {"GET": OWNER},
    # A certificate is the expert's own (404 until earned); its verification page is public: the code is the credential.
    "annotation:certificate": {"GET": OWNER},
    "annotation:certificate_verify": {"GET": EVERYONE},
    # Campaign management (API).
    "api-profile-list": {"GET": (ADMIN, *EXPERTS)},
    "api-profile-me": {"GET": (ADMIN, *EXPERTS)},
    "api-profile-certificates": {"GET": (ADMIN, *EXPERTS)},
    "api-profile-detail": {"GET": (ADMIN, *OWNER), "PUT": (ADMIN, *OWNER), "PATCH": (ADMIN, *OWNER)},
    "api-profile-override-tier": {"POST": (ADMIN,)},
    "api-profile-qualify": {"POST": (ADMIN,)},
    "api-calibration-result-list": {"GET": (ADMIN, *EXPERTS)},
    "api-calibration-result-detail": {"GET": (ADMIN, *OWNER)},
    "api-calibration-create": {"POST": (ADMIN,)},
    "api-gold-set-create": {"POST": (ADMIN,)},
    "api-dual-roles": {"GET": (ADMIN,)},
    "api-campaign-list": {"GET": (ADMIN,), "POST": (ADMIN,)},
    "api-campaign-detail": {"GET": (ADMIN,), "PATCH": (ADMIN,)},
    "api-campaign-settings-history": {"GET": (ADMIN,)},
    "api-campaign-payment-lines": {"GET": (ADMIN,)},
    "api-campaign-pay-decision": {"POST": (ADMIN,)},
    "api-pay-policy": {"GET": (ADMIN,), "PATCH": (ADMIN,)},
    "api-campaign-progress": {"GET": (ADMIN,)},
    "api-campaign-bulk-assign": {"POST": (ADMIN,)},
    "api-campaign-status": {"POST": (ADMIN,)},
    "api-campaign-payments": {"GET": (ADMIN,)},
    "api-manage-assignment-list": {"GET": (ADMIN,)},
    "api-manage-assignment-detail": {"GET": (ADMIN,)},
    "api-manage-assignment-release": {"POST": (ADMIN,)},
    "api-alert-list": {"GET": (ADMIN,)},
    "api-alert-detail": {"GET": (ADMIN,)},
    "api-alert-resolve": {"POST": (ADMIN,)},
    # Validation pages.
    "validation:index": {"GET": (ADMIN,)},
    "validation:dashboard": {"GET": (ADMIN,)},
    "validation:report": {"GET": (ADMIN,)},
    "validation:compute": {"POST": (ADMIN,)},
    "validation:adjudication-index": {"GET": GOLD},
    "validation:queue": {"GET": GOLD},
    "validation:adjudicate": {"GET": GOLD, "POST": GOLD},
    "validation:unit-case": {"GET": GOLD, "POST": GOLD},
    "validation:export": {"GET": (ADMIN,)},
    # The release policy of a dataset (staff read it, admins change it) and the release decision of a version.
    "validation:release-policy": {"GET": STAFF, "POST": (ADMIN,)},
    "validation:version-gate": {"GET": STAFF},
    # Validation API.
    "validation-reports": {"GET": (ADMIN,), "POST": (ADMIN,)},
    "validation-job": {"GET": (ADMIN,)},
    "validation-report": {"GET": (ADMIN,)},
    "validation-golden-labels": {"GET": (ADMIN,)},
    "validation-queue": {"GET": GOLD},
    "validation-adjudicate": {"POST": GOLD},
    "validation-unit-discussion": {"GET": GOLD},
    "validation-unit-case": {"POST": GOLD},
    "validation-import-judgments": {"POST": (ADMIN,)},
    "validation-release-policy": {"GET": STAFF, "PUT": (ADMIN,)},
    "validation-version-gate": {"GET": STAFF},
}
