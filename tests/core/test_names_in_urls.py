"""Names end up in URLs, headers and file names: a bad new one is refused on every way in, and no stored one breaks a page.

A dataset named `a/b` made `/`, `/datasets/` and `/rubrics/` answer 500 for every staff user,
a question id with `/` broke its version and rubric pages, a line break in a dataset name made
the version export 500 and a `"` broke its file name.
"""

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from heartbench_core.models import Dataset, DatasetVersion, LanguageModel
from heartbench_core.services.datasets import import_heartbench
from tests.factories import DEMO_ITEMS

pytestmark = pytest.mark.django_db

BAD_DATASET_NAMES = ["a/b", "line\r\nbreak", 'say "hi"', "back\\slash", " padded", "..", "tab\there", "x" * 101]


def _file_with_question_id(tmp_path, question_id: str):
    lines = DEMO_ITEMS.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["question_id"] = question_id
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join([json.dumps(first, ensure_ascii=False), *lines[1:]]) + "\n", encoding="utf-8")
    return path


STORED = [("a/b", "q/1"), ("line\r\nbreak", "q\r\n2"), ('say "hi"', "50%"), ("..", "."), ("x?y#z", "q%2F3")]


@pytest.mark.parametrize("name,question_id", STORED)
def test_every_staff_page_that_links_a_stored_bad_name_answers_200(cast, client, tmp_path, name, question_id):
    # Rows stored before names were checked: the dataset exists already, so the import keeps its name.
    Dataset.objects.create(name=name)
    version = import_heartbench(source=_file_with_question_id(tmp_path, question_id), dataset_name=name).version
    client.force_login(cast.author)
    pages = [
        "/",
        "/datasets/",
        "/rubrics/",
        reverse("core:dataset", args=[name]),
        reverse("core:diff", args=[name]),
        reverse("core:version", args=[name, version.label]),
        reverse("core:item", args=[name, version.label, question_id]),
        reverse("rubrics:dataset", args=[name]),
        reverse("rubrics:editor", args=[name, question_id]),
    ]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
    item_page = client.get(reverse("core:item", args=[name, version.label, question_id]))
    assert item_page.context["item"].question_id == question_id


def test_a_name_with_a_slash_or_percent_reverses_to_one_segment_and_resolves_back():
    from django.urls import resolve

    for name in ["a/b", "50%", "50%25", "..", "名字 with space", "q?x#y"]:
        url = reverse("core:dataset", args=[name])
        assert url.count("/") == 3, url
        from urllib.parse import unquote

        assert resolve(unquote(url)).kwargs["name"] == name


@pytest.mark.parametrize("name", ["line\r\nbreak", 'say "hi"', "数据集"])
def test_the_version_export_of_any_stored_name_has_a_valid_attachment_header(cast, client, name):
    Dataset.objects.create(name=name)
    version = import_heartbench(source=DEMO_ITEMS, dataset_name=name).version
    client.force_login(cast.admin)
    response = client.get(f"/api/v1/versions/{version.pk}/export/")
    assert response.status_code == 200
    header = response["Content-Disposition"]
    assert header.startswith("attachment; ") and "\r" not in header and "\n" not in header
    if name == 'say "hi"':
        assert header == 'attachment; filename="say \\"hi\\"-v1.jsonl"'
    if name == "数据集":
        assert header == "attachment; filename*=utf-8''%E6%95%B0%E6%8D%AE%E9%9B%86-v1.jsonl"


@pytest.mark.parametrize("name", BAD_DATASET_NAMES)
def test_the_import_command_refuses_a_bad_new_dataset_name_and_writes_nothing(name):
    with pytest.raises(CommandError, match="dataset: "):
        call_command("import_heartbench", str(DEMO_ITEMS), "--dataset", name)
    assert not Dataset.objects.exists()


@pytest.mark.parametrize("label", ["v/2", "v\n2", 'v"2', "v" * 65])
def test_the_import_command_refuses_a_bad_version_label(label):
    with pytest.raises(CommandError, match="version: "):
        call_command("import_heartbench", str(DEMO_ITEMS), "--dataset", "demo", "--version", label)
    assert not DatasetVersion.objects.exists()


@pytest.mark.parametrize("name", ["a/b", 'say "hi"', "tab\there"])
def test_the_import_api_refuses_a_bad_new_dataset_name_naming_the_field(cast, client, name):
    client.force_login(cast.admin)
    upload = io.BytesIO(DEMO_ITEMS.read_bytes())
    upload.name = "items.jsonl"
    response = client.post("/api/v1/import/heartbench/", {"dataset": name, "file": upload})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["dataset"]
    assert not Dataset.objects.exists()


def test_the_answer_import_refuses_a_bad_new_model_name_but_accepts_an_organisation_prefix(cast, client):
    import_heartbench(source=DEMO_ITEMS, dataset_name="demo")
    client.force_login(cast.admin)
    lines = b'{"question_id": "dm0001", "response": "hello"}\n'
    for model, status in [("bad\nmodel", 400), ('quo"te', 400), ("org/model-7b", 201)]:
        upload = io.BytesIO(lines)
        upload.name = "answers.jsonl"
        response = client.post("/api/v1/import/responses/", {"dataset": "demo", "model": model, "file": upload})
        assert response.status_code == status, (model, response.content)
    assert list(LanguageModel.objects.values_list("name", flat=True)) == ["org/model-7b"]


def test_the_django_admin_refuses_a_bad_dataset_or_model_name_on_its_form(cast, client):
    cast.admin.is_staff = cast.admin.is_superuser = True
    cast.admin.save()
    client.force_login(cast.admin)
    response = client.post(
        reverse("admin:heartbench_core_dataset_add"), {"name": "a/b", "description": "", "extra_labels": "[]", "review_panel_size": 4}
    )
    assert response.status_code == 200 and "must not contain &#x27;/&#x27;" in response.content.decode()
    assert not Dataset.objects.exists()
    response = client.post(reverse("admin:heartbench_core_languagemodel_add"), {"name": "x\r\ny", "notes": ""})
    assert response.status_code == 200 and not LanguageModel.objects.exists()
    response = client.post(
        reverse("admin:heartbench_core_dataset_add"), {"name": "good", "description": "", "extra_labels": "[]", "review_panel_size": 4}
    )
    assert response.status_code == 302 and Dataset.objects.filter(name="good").exists()


def test_the_judge_verdicts_command_refuses_a_model_or_run_name_too_long_to_store():
    import_heartbench(source=DEMO_ITEMS, dataset_name="demo")
    verdicts = str(DEMO_ITEMS.parent / "verdicts" / "demo-model-aurora.jsonl")
    with pytest.raises(CommandError, match="model: 'm{80}…' is longer than 200 characters"):
        call_command("import_judge_verdicts", verdicts, "--dataset", "demo", "--model", "m" * 201, "--judge", "j")
    with pytest.raises(CommandError, match="run: .* is longer than 64 characters"):
        call_command(
            "import_judge_verdicts", verdicts, "--dataset", "demo", "--model", "demo-model-aurora", "--judge", "j", "--run", "r" * 65
        )
    assert not LanguageModel.objects.exists()
