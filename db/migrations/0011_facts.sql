-- Every figure a report prints, as a fact (domain/facts.py): one row per table cell and
-- per amount stated in a sentence, with the period it describes, its label, unit and
-- page. Rebuilt with its document on every ingestion that changes it (or when the
-- extractor's version changes); removed when its document is.
CREATE TABLE facts (
    fact_id             bigserial PRIMARY KEY,
    corpus              text        NOT NULL,
    document_id         text        NOT NULL,
    document            text        NOT NULL,
    content_hash        text        NOT NULL,
    extractor_version   integer     NOT NULL,
    chunk_id            text        NOT NULL,
    company             text        NOT NULL,
    report_fiscal_year  integer     NOT NULL,
    fiscal_year         integer     NOT NULL,
    page                integer     NOT NULL,
    source              text        NOT NULL CHECK (source IN ('table', 'prose')),
    label               text        NOT NULL,
    metric              text,
    value               double precision NOT NULL,
    raw                 text        NOT NULL,
    unit                text        NOT NULL,
    decimals            integer     NOT NULL,
    restated            boolean     NOT NULL,
    context             text        NOT NULL,
    search              tsvector GENERATED ALWAYS AS (
                            to_tsvector('english', label || ' ' || context)) STORED
);
CREATE INDEX facts_document ON facts (corpus, document_id);
CREATE INDEX facts_company_year ON facts (corpus, company, fiscal_year);
CREATE INDEX facts_search ON facts USING gin (search);
