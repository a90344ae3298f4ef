-- What a decision record needs to stand on its own.
--
-- document_chunks: every registered document's chunks as the report index holds them,
-- written by ingestion in the registry's transaction (a document's rows are replaced with
-- it). A settled turn's record takes from here the text hash and document version of each
-- chunk it cited or kept (the saving worker may have no report index of its own), and
-- `turnstile audit show` compares a recorded passage with what is held today.
CREATE TABLE document_chunks (
    corpus        text NOT NULL,
    document_id   text NOT NULL,
    chunk_id      text NOT NULL,
    position      integer NOT NULL,
    page          integer NOT NULL,
    text_sha256   text NOT NULL,
    PRIMARY KEY (corpus, chunk_id)
);
CREATE INDEX document_chunks_document ON document_chunks (corpus, document_id, position);
CREATE INDEX document_chunks_chunk ON document_chunks (chunk_id);

-- The clarifying questions a turn asked, as shown (one per round): the final save writes
-- them into the decision record, since the turn's result keeps only the last one.
ALTER TABLE turns ADD COLUMN asked jsonb NOT NULL DEFAULT '[]';
