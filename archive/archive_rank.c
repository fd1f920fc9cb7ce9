/*
 * archive_rank.c - the search's ranking, the FTS5 function mj_rank():
 * Okapi BM25 without its length normalisation (b = 0).  FTS5's own
 * bm25() weighs each match by its length, read from the match's row of
 * token counts (the fts_docsize table): one B-tree lookup a match, at a
 * million posts scattered over gigabytes, most of a ranked query's
 * time.  Without it the score needs only what the match itself holds
 * (each term's hits in the post) and, once a query, each term's posts
 * in the index (its idf).  Higher is better; it returns the score
 * negated, so that ORDER BY rank puts the best first, as bm25() does;
 * of equal scores (from:x alone: one hit in every match) the latest
 * post comes first.
 */
#include <math.h>
#include <stdlib.h>

#include "archive_rank.h"

#define ARCHIVE_RANK_K1 1.2 /* how fast more hits of a term stop counting */

/* A query's terms (phrases) and their idf, kept in its auxiliary data. */
struct archive_rank_query {
	int n;
	double *idf;
	int *hits; /* of the current post, a term each */
};

/* archive_rank_free - the auxiliary data's destructor */
static void
archive_rank_free(void *arg)
{
	struct archive_rank_query *q = arg;

	if (q == NULL)
		return;
	free(q->idf);
	free(q->hits);
	free(q);
}

/* archive_rank_one - xQueryPhrase's callback: one more post */
static int
archive_rank_one(const Fts5ExtensionApi *api, Fts5Context *fts, void *arg)
{
	(void)api;
	(void)fts;
	++*(sqlite3_int64 *)arg;
	return SQLITE_OK;
}

/* archive_rank_prepare - the query's terms and their idf, once a query
 * (FTS5 keeps them for every match of the same MATCH); NULL on error */
static struct archive_rank_query *
archive_rank_prepare(const Fts5ExtensionApi *api, Fts5Context *fts)
{
	struct archive_rank_query *q;
	sqlite3_int64 rows, posts;
	int i;

	if ((q = api->xGetAuxdata(fts, 0)) != NULL)
		return q;
	if ((q = calloc(1, sizeof(*q))) == NULL)
		return NULL;
	q->n = api->xPhraseCount(fts);
	if ((q->idf = calloc((size_t)q->n + 1, sizeof(*q->idf))) == NULL ||
	    (q->hits = calloc((size_t)q->n + 1, sizeof(*q->hits))) == NULL ||
	    api->xRowCount(fts, &rows) != SQLITE_OK) {
		archive_rank_free(q);
		return NULL;
	}
	for (i = 0; i < q->n; i++) {
		posts = 0;
		if (api->xQueryPhrase(fts, i, &posts, archive_rank_one) !=
		    SQLITE_OK) {
			archive_rank_free(q);
			return NULL;
		}
		/* BM25's idf, kept above 0 as bm25() keeps it */
		q->idf[i] = log((rows - posts + 0.5) / (posts + 0.5));
		if (q->idf[i] <= 0.0)
			q->idf[i] = 1e-6;
	}
	if (api->xSetAuxdata(fts, q, archive_rank_free) != SQLITE_OK)
		return NULL; /* freed by xSetAuxdata */
	return q;
}

/* archive_rank - mj_rank(): the current post's score, negated */
static void
archive_rank(const Fts5ExtensionApi *api, Fts5Context *fts,
    sqlite3_context *ctx, int nval, sqlite3_value **val)
{
	struct archive_rank_query *q;
	double score = 0.0, f;
	int i, n, phrase, col, off;

	(void)nval;
	(void)val;
	if ((q = archive_rank_prepare(api, fts)) == NULL ||
	    api->xInstCount(fts, &n) != SQLITE_OK) {
		sqlite3_result_error(ctx, "mj_rank: cannot rank", -1);
		return;
	}
	for (i = 0; i < q->n; i++)
		q->hits[i] = 0;
	for (i = 0; i < n; i++) {
		if (api->xInst(fts, i, &phrase, &col, &off) != SQLITE_OK) {
			sqlite3_result_error(ctx, "mj_rank: cannot rank", -1);
			return;
		}
		if (phrase >= 0 && phrase < q->n)
			q->hits[phrase]++;
	}
	for (i = 0; i < q->n; i++) {
		f = q->hits[i];
		score += q->idf[i] * f * (ARCHIVE_RANK_K1 + 1) /
			 (f + ARCHIVE_RANK_K1);
	}
	/* of equal scores, the latest post first: a tie-break below any
	 * difference of hits (rowids stay under 2^40) */
	score += (double)api->xRowid(fts) * 1e-13;
	sqlite3_result_double(ctx, -score);
}

/* archive_rank_api - db's FTS5 interface (SELECT fts5(?) hands it over
 * through a pointer bound to the statement); NULL without FTS5 */
static fts5_api *
archive_rank_api(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	fts5_api *api = NULL;

	if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, NULL) !=
		SQLITE_OK ||
	    sqlite3_bind_pointer(st, 1, &api, "fts5_api_ptr", NULL) !=
		SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		api = NULL;
	sqlite3_finalize(st);
	return api;
}

/* archive_rank_register - mj_rank() on db */
int
archive_rank_register(sqlite3 *db)
{
	fts5_api *api;

	if ((api = archive_rank_api(db)) == NULL || api->iVersion < 2)
		return -1;
	return api->xCreateFunction(api, "mj_rank", NULL, archive_rank, NULL) ==
		       SQLITE_OK
		   ? 0
		   : -1;
}
