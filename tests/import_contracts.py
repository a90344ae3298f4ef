"""An import-linter contract type that names what a layer MAY import: an allow-list.

import-linter's own contract types list what a layer must not import ("forbidden"), so a
new I/O library or a new package of ours is allowed everywhere until someone adds it to
every list that should refuse it (the lists had already missed two modules once). This
contract turns that round: each layer names the packages of ours and the third-party
packages it may import, and anything else it imports, directly or inside a function, breaks
the contract. The standard library is always allowed. It is written here because
import-linter has no such type (its documented extension point is a custom contract class);
it reads the graph import-linter has already built (grimp), so it costs milliseconds.
"""

import sys

from grimp import ImportGraph
from importlinter.application import output
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck


def top_level(module: str) -> str:
    return module.split(".", 1)[0]


class MayImportOnly(Contract):
    """Each source package imports only itself, the standard library and `allowed_modules`.

    Configuration options:
        - source_modules: the packages (or top-level modules) the rule is about.
        - allowed_modules: the top-level packages and modules, ours or third-party, they may
          import. Each source may always import itself.
    """

    type_name = "may_import_only"

    source_modules = fields.ListField(subfield=fields.StringField())
    allowed_modules = fields.ListField(subfield=fields.StringField())

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        allowed = set(self.allowed_modules) | set(sys.stdlib_module_names)  # type: ignore[call-overload]
        refused: list[dict[str, object]] = []
        for source in self.source_modules:  # type: ignore[attr-defined]
            if source not in graph.modules:
                raise ValueError(f"{source} is not a module of this project")
            for importer in sorted(graph.find_descendants(source) | {source}):
                for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                    if top_level(imported) in allowed | {source}:
                        continue
                    lines = [
                        d["line_number"]
                        for d in graph.get_import_details(importer=importer, imported=imported)
                    ]
                    refused.append({"importer": importer, "imported": imported, "lines": lines})
        return ContractCheck(kept=not refused, warnings=[], metadata={"refused": refused})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for item in check.metadata["refused"]:
            lines = ", ".join(f"l.{n}" for n in item["lines"])
            output.print_error(
                f"{item['importer']} imports {item['imported']} ({lines}), which it may not",
                bold=False,
            )
            output.new_line()
