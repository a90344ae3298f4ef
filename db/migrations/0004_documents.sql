-- The document registry: one annual report per company and fiscal year in each report
-- index. `corpus` names the Qdrant collection a row describes (its location and name), so
-- a throwaway test index and a running stack never share registrations. The worker's
-- ingest activity refuses a different file for a registered document unless asked to
-- replace it.
CREATE TABLE documents (
    corpus         text NOT NULL,
    document_id    text NOT NULL,
    company        text NOT NULL,
    fiscal_year    integer NOT NULL,
    source_path    text NOT NULL,
    file_sha256    text NOT NULL,
    content_hash   text NOT NULL,
    chunks         integer NOT NULL,
    registered_at  timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (corpus, document_id)
);
CREATE INDEX documents_source_path ON documents (corpus, source_path);

-- Every change of a registered document's file, append-only. `forced` marks a different
-- file accepted because replacement was requested; new_path/new_sha256 are NULL when the
-- file was re-ingested under another company or year (re-tagged) and the entry removed.
CREATE TABLE document_replacements (
    replacement_id   bigserial PRIMARY KEY,
    corpus           text NOT NULL,
    document_id      text NOT NULL,
    previous_path    text NOT NULL,
    previous_sha256  text NOT NULL,
    new_path         text,
    new_sha256       text,
    forced           boolean NOT NULL,
    replaced_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX document_replacements_document
    ON document_replacements (corpus, document_id, replacement_id);

CREATE FUNCTION document_replacements_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'document_replacements is append-only';
END
$$;
CREATE TRIGGER document_replacements_append_only
    BEFORE UPDATE OR DELETE ON document_replacements
    FOR EACH ROW EXECUTE FUNCTION document_replacements_append_only();
