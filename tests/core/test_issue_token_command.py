"""`manage.py issue_token`: the token is printed once on standard output and only its digest is stored."""

import hashlib
import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from heartbench_core.models import ApiToken

pytestmark = pytest.mark.django_db


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command("issue_token", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_it_prints_the_token_alone_and_stores_its_digest(cast):
    out, err = run("rita_author", "--name", "nightly import", "--days", "30")
    text = out.strip()
    token = ApiToken.objects.get(user=cast.author)
    assert token.digest == hashlib.sha256(text.encode()).hexdigest() and token.name == "nightly import"
    assert token.expires_at - token.created_at == timedelta(days=30)
    assert token.prefix in err and "nightly import" in err and "shown only now" in err and text not in err
    assert Client().get("/api/v1/datasets/", HTTP_AUTHORIZATION=f"Token {text}").status_code == 200


def test_a_bad_argument_is_named_and_nothing_is_written(cast):
    with pytest.raises(CommandError, match="--days: A token lives between 1 and 365 days"):
        run("rita_author", "--name", "x", "--days", "400")
    with pytest.raises(CommandError, match="no user named 'ghost'"):
        run("ghost", "--name", "x")
    assert not ApiToken.objects.exists()
