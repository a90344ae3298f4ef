"""A generated section of a Markdown document: the text between two marker comments,
written from code (the failure-policy table from `workflows.policy`, the settings table
from `settings`). One helper for every such section: reading it, replacing it, and the
`python -m ...` command that rewrites it or, with `--check`, only says whether it is
current (exit code 1 if not). Written here because the section's markers are ours; a
template library would add a dependency for two string slices.
"""

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class GeneratedSection:
    name: str
    """What the section is, as messages say it ("policy table")."""
    command: str
    """The command that rewrites it ("python -m workflows.policy_doc")."""
    path: Path
    begin: str
    end: str
    render: Callable[[], str]

    def text_in(self, document: str) -> str:
        """The text between the markers of a document (ValueError when they are missing)."""
        start, end = document.find(self.begin), document.find(self.end)
        if start < 0 or end < start:
            raise ValueError(f"the {self.name} markers are missing or out of order")
        return document[start + len(self.begin) : end].strip("\n") + "\n"

    def rewritten(self, document: str) -> str:
        """The document with the text between its markers replaced by `render()`."""
        self.text_in(document)  # validates the markers
        start = document.find(self.begin) + len(self.begin)
        return document[:start] + "\n" + self.render() + document[document.find(self.end) :]

    def main(self, argv: list[str] | None = None, description: str | None = None) -> int:
        """Rewrite the section in its document; `--check`: exit 1 when it is stale."""
        parser = argparse.ArgumentParser(prog=self.command, description=description)
        parser.add_argument("--check", action="store_true", help="exit 1 if the doc is stale")
        parser.add_argument("--path", type=Path, default=self.path)
        args = parser.parse_args(argv)
        current = args.path.read_text("utf-8")
        updated = self.rewritten(current)
        if args.check:
            if updated != current:
                print(f"{args.path}: the {self.name} is stale; run {self.command}")
                return 1
            return 0
        if updated != current:
            args.path.write_text(updated, "utf-8")
            print(f"{args.path}: {self.name} updated")
        return 0
