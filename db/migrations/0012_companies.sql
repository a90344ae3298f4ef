-- The company registry: who a report's company is (name, aliases, fiscal-year end,
-- reporting currency), registered with its first report in each report index. The
-- coverage a turn reads is the registered companies that have documents, with their
-- documents' fiscal years, in registration order (`position`).
CREATE TABLE companies (
    corpus         text NOT NULL,
    ticker         text NOT NULL,
    name           text NOT NULL,
    aliases        text[] NOT NULL,
    year_end       text NOT NULL CHECK (year_end ~ '^[0-9]{2}-[0-9]{2}$'),
    currency       text NOT NULL,
    commodities    text[] NOT NULL DEFAULT '{}',
    position       bigserial,
    registered_at  timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (corpus, ticker)
);

-- Reports registered before companies were data belong to the five sample companies
-- the code then listed: register them, in the order the code listed them.
INSERT INTO companies (corpus, ticker, name, aliases, year_end, currency, commodities)
SELECT d.corpus, s.ticker, s.name, s.aliases, s.year_end, s.currency, s.commodities
FROM (SELECT DISTINCT corpus, company FROM documents) d
JOIN (VALUES
    (1, 'BHP', 'BHP Group', ARRAY['bhp', 'bhp group', 'bhp billiton', 'bhp group limited', '必和必拓'], '06-30', 'US$', ARRAY['iron ore', 'copper', 'coal', 'nickel']),
    (2, 'RIO', 'Rio Tinto', ARRAY['rio', 'rio tinto', 'rio tinto group', 'rio tinto limited', 'rio tinto plc', '力拓'], '12-31', 'US$', ARRAY['iron ore', 'copper', 'aluminium']),
    (3, 'FMG', 'Fortescue', ARRAY['fmg', 'fortescue', 'fortescue metals', 'fortescue metals group', 'fortescue ltd', '福蒂斯丘', '福特斯克'], '06-30', 'US$', ARRAY['iron ore']),
    (4, 'S32', 'South32', ARRAY['s32', 'south32', 'south 32', 'south32 limited', '南32', '南三十二'], '06-30', 'US$', ARRAY['coal', 'aluminium', 'manganese']),
    (5, 'NST', 'Northern Star', ARRAY['nst', 'northern star', 'northern star resources', 'northern star resources ltd', '北方之星'], '06-30', 'A$', ARRAY['gold'])
) AS s (n, ticker, name, aliases, year_end, currency, commodities) ON s.ticker = d.company
ORDER BY d.corpus, s.n;
