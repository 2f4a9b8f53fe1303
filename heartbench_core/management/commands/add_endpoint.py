from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext, gettext_lazy

from heartbench_core.judging.services.endpoints import save_endpoint
from heartbench_core.management.commands._base import ImportCommand


class Command(ImportCommand):
    help = gettext_lazy(  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)
        "Create or update an OpenAI-compatible chat endpoint (a judge or a model under test). "
        "The API key is never stored: --api-key-env names the environment variable that holds it."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument(
            "--base-url",
            help=gettext(
                "e.g. https://api.example.com/v1 (required for a new endpoint); a public address, "
                "unless the operator allows the host in ENDPOINT_ALLOWED_HOSTS."
            ),
        )
        parser.add_argument("--model", help=gettext("The model name sent with each request (required for a new endpoint)."))
        parser.add_argument(
            "--api-key-env",
            metavar="VAR",
            help=gettext(
                "Name of the environment variable holding the API key, one the operator designated "
                "(ENDPOINT_KEY_PREFIX, by default HEARTBENCH_KEY_…, or ENDPOINT_KEY_VARIABLES); '' for none."
            ),
        )
        parser.add_argument("--concurrency", type=int, metavar="N")
        parser.add_argument("--requests-per-minute", type=int, metavar="N", help=gettext("0 for no limit."))
        parser.add_argument("--max-retries", type=int, metavar="N")
        parser.add_argument("--timeout", type=float, metavar="SECONDS")
        parser.add_argument("--temperature", type=float, metavar="T")
        parser.add_argument("--max-tokens", type=int, metavar="N")
        parser.add_argument("--backoff", type=float, metavar="SECONDS", help=gettext("Wait before the first retry (it doubles)."))
        parser.add_argument("--price-input", metavar="PRICE", help=gettext("Price per million input tokens ('' for none)."))
        parser.add_argument("--price-output", metavar="PRICE", help=gettext("Price per million output tokens ('' for none)."))
        parser.add_argument("--currency", metavar="CODE")
        parser.add_argument("--note")

    def handle(self, *args: Any, **opts: Any) -> None:
        options = {
            "base_url": opts["base_url"],
            "model": opts["model"],
            "api_key_env": opts["api_key_env"],
            "concurrency": opts["concurrency"],
            "requests_per_minute": opts["requests_per_minute"],
            "max_retries": opts["max_retries"],
            "timeout_seconds": opts["timeout"],
            "temperature": opts["temperature"],
            "max_tokens": opts["max_tokens"],
            "backoff_seconds": opts["backoff"],
            "price_input": opts["price_input"],
            "price_output": opts["price_output"],
            "currency": opts["currency"],
            "note": opts["note"],
        }
        values = {k: v for k, v in options.items() if v is not None}
        if values.get("requests_per_minute") == 0:
            values["requests_per_minute"] = None
        outcome = self.run_service(save_endpoint, name=opts["name"], **values)
        e = outcome.endpoint
        facts = {"name": e.name, "model": e.model, "url": e.base_url, "key": e.api_key_env or gettext("no key")}
        if outcome.created:
            self.stdout.write(gettext("created endpoint %(name)s: model %(model)s at %(url)s (API key from %(key)s)") % facts)
        elif outcome.changed:
            self.stdout.write(gettext("updated endpoint %(name)s: %(fields)s") % {"name": e.name, "fields": ", ".join(outcome.changed)})
        else:
            self.stdout.write(gettext("endpoint %(name)s unchanged") % facts)
