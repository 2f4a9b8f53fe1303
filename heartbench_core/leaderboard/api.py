"""REST API of scores: one model's scores from a verdict source, as `score --format json` gives them, or every model's at once (admins and rubric authors only)."""

from typing import Any

from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from heartbench_core.judging.api import IsScoringStaff
from heartbench_core.leaderboard import read_models
from heartbench_core.leaderboard.calibrated import NOT_A_JUDGE, ONLY_ALL_PAPER, calibrated_boards, calibrated_of
from heartbench_core.lib.scoring import CATASTROPHIC_MODES
from heartbench_core.read_models import Viewer
from heartbench_core.services.scoring import SUBSETS, ModelScores


class QuestionScoreSerializer(serializers.Serializer):
    question_id = serializers.CharField()
    score = serializers.FloatField(allow_null=True)
    catastrophic = serializers.BooleanField(help_text="A catastrophic criterion was hit.")
    abilities = serializers.DictField(child=serializers.FloatField(), help_text="Normalised score per ability present in the question.")
    difficulty = serializers.CharField()
    scene = serializers.CharField()


class ScoreSerializer(serializers.Serializer):
    """One model's scores (`score --format json`); a score that cannot be computed is null, with its reason in `undefined`."""

    overall = serializers.FloatField(allow_null=True)
    abilities = serializers.DictField(child=serializers.FloatField(allow_null=True), help_text="Score per ability label.")
    dimensions = serializers.DictField(child=serializers.FloatField(allow_null=True), help_text="Score per dimension.")
    questions_scored = serializers.IntegerField()
    questions_dropped = serializers.IntegerField(help_text="Questions of the subset left out: some criterion has no verdict.")
    catastrophic = serializers.ChoiceField(choices=CATASTROPHIC_MODES, help_text="How catastrophic criteria were scored.")
    subset = serializers.ChoiceField(choices=SUBSETS)
    scene = serializers.CharField(allow_null=True)
    version = serializers.CharField(help_text="The dataset version's label.")
    ability_questions = serializers.DictField(child=serializers.IntegerField(), help_text="Scored questions per ability label.")
    questions_incomplete = serializers.IntegerField()
    questions_catastrophic = serializers.IntegerField()
    verdicts_used = serializers.IntegerField()
    verdicts_stale = serializers.IntegerField(help_text="Verdicts made against an older meaning of their criterion: not counted.")
    verdicts_unmatched = serializers.IntegerField()
    undefined = serializers.DictField(child=serializers.CharField(), help_text="Why each null score is null, by its name.")
    questions = QuestionScoreSerializer(many=True, required=False, help_text="Per-question scores, when asked (`questions=true`).")
    source = serializers.CharField(help_text="The verdicts scored, in words.")  # type: ignore[assignment]  # the key is "source"; the metaclass takes it out of the class


class ScoresView(APIView):
    """One model's scores from a verdict source: the same JSON as `score --format json`."""

    permission_classes = [IsScoringStaff]
    # Scoring writes nothing: a source it cannot score is "no score" (with the field or message).
    validation_error_detail = _("no score")

    @extend_schema(
        parameters=[
            OpenApiParameter(name, OpenApiTypes.STR, required=name in ("dataset", "model"))
            for name in ("dataset", "model", "source", "judge", "run", "version", "subset", "scene", "catastrophic")
        ]
        + [OpenApiParameter("questions", OpenApiTypes.BOOL, description="include per-question scores")],
        responses={200: ScoreSerializer},
    )
    def get(self, request: Request) -> Response:
        result, verdicts, questions = read_models.model_scores(Viewer.of(request), request.query_params)
        return Response(ScoreSerializer({**result.as_json(include_questions=questions), "source": verdicts.description}).data)


class CalibratedFigureSerializer(serializers.Serializer):
    value = serializers.FloatField(allow_null=True, help_text="Null when undefined (see reason), never 0.")
    n = serializers.IntegerField(allow_null=True, help_text="Items it rests on: scored by the judge, or labelled by the experts.")
    reason = serializers.CharField(allow_null=True)


class CalibratedIntervalSerializer(serializers.Serializer):
    low = serializers.FloatField(allow_null=True)
    high = serializers.FloatField(allow_null=True)
    reason = serializers.CharField(allow_null=True)


class LeaderboardAltTestSerializer(serializers.Serializer):
    """Can the judge replace an expert? The alternative annotator test of the same report (Calderon, Reichart & Dror, 2025)."""

    winning_rate = CalibratedFigureSerializer(help_text="Share of the tested experts the judge beats; n: experts tested.")
    advantage_probability = CalibratedFigureSerializer(
        help_text="Share of an expert's responses the judge wins, averaged over the experts."
    )
    can_replace_an_expert = serializers.BooleanField(source="passed", allow_null=True, help_text="Winning rate ≥ 0.5; null when undefined.")
    epsilon = serializers.FloatField(help_text="The release policy's cost–benefit margin ε the test was run with.")
    experts_tested = serializers.IntegerField()
    experts_left_out = serializers.IntegerField(help_text="Experts with too few responses to be tested.")


class LeaderboardCalibratedSerializer(serializers.Serializer):
    """The overall score three ways, from the judge's latest official agreement report on the version (all questions, paper rule)."""

    report = serializers.IntegerField(help_text="The agreement report they come from.")
    campaign = serializers.CharField()
    judge_only = CalibratedFigureSerializer(
        help_text="The judge's verdicts on every item (the leaderboard's score, as the report computed it)."
    )
    experts = CalibratedFigureSerializer(help_text="The experts' golden labels on the sampled items alone, strata weighted by their share.")
    experts_ci95 = CalibratedIntervalSerializer()
    corrected = CalibratedFigureSerializer(
        help_text="The judge's score corrected by its error on the labelled items (prediction-powered inference, PPI++)."
    )
    corrected_ci95 = CalibratedIntervalSerializer(
        help_text="95%, analytic over the items, with the variance between the experts who gave the golden labels added "
        "(see `experts_resampled`)."
    )
    experts_resampled = serializers.IntegerField(
        allow_null=True,
        help_text="Experts whose votes the intervals count besides the items; null when the items alone (reports from before).",
    )
    judge_alt_test = LeaderboardAltTestSerializer(
        allow_null=True, help_text="Can the judge replace an expert? From the same report; null in a report from before the test."
    )
    lam = serializers.FloatField(allow_null=True, help_text="Power-tuning λ: 0 is the experts alone, 1 plain PPI.")
    judge_rank = serializers.IntegerField()
    corrected_rank = serializers.IntegerField()
    rank_change = serializers.IntegerField(help_text="Positive: the corrected score ranks the model higher than the judge's.")
    kendall_tau = CalibratedFigureSerializer(help_text="Between the report's judge-only and corrected rankings; n: models.")


class ModelScoresSerializer(serializers.Serializer):
    rank = serializers.IntegerField(allow_null=True, help_text="By overall score; null when nothing was scored.")
    model = serializers.CharField()
    judge = serializers.CharField(allow_null=True, help_text="The judge of the run scored (judge source).")
    run = serializers.CharField(allow_null=True, help_text="The run label (judge source) or the campaign (consensus).")
    scores = ScoreSerializer(help_text="What `GET scores/` gives for this model (without per-question scores).")
    calibrated = LeaderboardCalibratedSerializer(
        allow_null=True, help_text="Human-calibrated overall scores (judge source, all questions, paper rule); null with a reason."
    )
    calibrated_reason = serializers.CharField(allow_null=True, help_text="Why there are no calibrated scores; null when there are.")


class LeaderboardSerializer(serializers.Serializer):
    """Every model's scores from one verdict source on one dataset version, ranked by overall score."""

    dataset = serializers.CharField()
    version = serializers.CharField(allow_null=True, help_text="The version scored (null when no model is listed).")
    source = serializers.CharField()  # type: ignore[assignment]  # the key is "source"; the metaclass takes it out of the class
    subset = serializers.ChoiceField(choices=SUBSETS)
    scene = serializers.CharField(allow_null=True)
    catastrophic = serializers.ChoiceField(choices=CATASTROPHIC_MODES)
    ranked = serializers.IntegerField(help_text="Models ranked, before `q` and `top` kept some of them.")
    count = serializers.IntegerField(help_text="Models listed (after `q` and `top`) over every page.")
    next = serializers.URLField(allow_null=True, help_text="The next page (null on the last).")
    previous = serializers.URLField(allow_null=True, help_text="The previous page (null on the first).")
    models = ModelScoresSerializer(many=True, help_text="This page's models (50 a page), in rank order.")


class LeaderboardView(APIView):
    """Every model's scores from a verdict source on one dataset version, ranked (from stored scores), 50 a page.

    `count`, `next` and `previous` page through the models listed; the judge source on every scene
    reads only the page's stored scores. Like the leaderboard page, it is closed whole to an expert
    of an open campaign on the dataset.
    """

    permission_classes = [IsScoringStaff]
    validation_error_detail = _("no score")

    @extend_schema(
        parameters=[
            OpenApiParameter(name, OpenApiTypes.STR, required=name == "dataset")
            for name in ("dataset", "source", "judge", "run", "version", "subset", "scene", "catastrophic", "q")
        ]
        + [
            OpenApiParameter("top", OpenApiTypes.INT, description="Only the first N models listed (after `q`), in rank order."),
            OpenApiParameter("page", OpenApiTypes.INT, description="The page of the models listed (50 a page)."),
        ],
        responses={200: LeaderboardSerializer},
    )
    def get(self, request: Request) -> Response:
        size = api_settings.PAGE_SIZE or 50
        found = read_models.models_scores_page(Viewer.of(request), request.query_params, size=size)
        if found.offset and found.offset >= found.listed:
            raise NotFound(PageNumberPagination.invalid_page_message)
        q, rows, url = found.query, found.rows, request.build_absolute_uri()
        if q["source"] == "judge":
            calibrated = _calibrated(rows, whole=q["subset"] == "all" and not q["scene"] and q["catastrophic"] == "paper")
        else:
            calibrated = [{"calibrated": None, "calibrated_reason": NOT_A_JUDGE}] * len(rows)
        body = {
            **q,
            "ranked": found.ranked,
            "count": found.listed,
            "next": replace_query_param(url, "page", found.page + 1) if found.offset + size < found.listed else None,
            "previous": None if found.page == 1 else replace_query_param(url, "page", found.page - 1),
            "version": rows[0].result.version if rows else None,
            "models": [
                {
                    "rank": row.rank,
                    "model": row.model,
                    "judge": row.verdicts.meta.get("judge"),
                    "run": row.verdicts.meta.get("run") or row.verdicts.meta.get("campaign"),
                    "scores": {**row.result.as_json(), "source": row.verdicts.description},
                    **cells,
                }
                for row, cells in zip(rows, calibrated)
            ],
        }
        return Response(LeaderboardSerializer(body).data)


def _calibrated(rows: list[ModelScores], *, whole: bool) -> list[dict[str, Any]]:
    """Each row's `calibrated` and `calibrated_reason`, from its judge's latest report (one query)."""
    if not rows:
        return []
    if not whole:
        return [{"calibrated": None, "calibrated_reason": ONLY_ALL_PAPER}] * len(rows)
    boards = calibrated_boards(rows[0].verdicts.version, {row.model for row in rows})
    out: list[dict[str, Any]] = []
    for row in rows:
        board, m, reason = calibrated_of(boards, str(row.verdicts.meta.get("judge")), row.model, str(row.verdicts.meta.get("run") or ""))
        if board is None or m is None:
            out.append({"calibrated": None, "calibrated_reason": reason})
            continue
        o = m.overall  # its figures and intervals are serialised as they are (value, n, reason; low, high, reason)
        cell = {
            "report": board.report_id,
            "campaign": board.campaign,
            "judge_only": o.judge,
            "experts": o.experts,
            "experts_ci95": o.experts_ci95,
            "corrected": o.corrected,
            "corrected_ci95": o.corrected_ci95,
            "lam": o.lam,
            "judge_rank": m.judge_rank,
            "corrected_rank": m.corrected_rank,
            "rank_change": m.rank_change,
            "kendall_tau": board.kendall_tau,
            "experts_resampled": board.experts_resampled,
            "judge_alt_test": board.alt_test,
        }
        out.append({"calibrated": cell, "calibrated_reason": None})
    return out
