/*
 * queueserv_cluster.c - [cluster] in "status": whether the limits are
 * shared with the other nodes through Redis or, Redis unreachable, kept
 * to this node's shares, as the runners last wrote it into the
 * destination table's header (dest_cluster.c).  Nothing is shown when
 * [cluster] is off.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "queueserv_status.h"

/* queueserv_cluster_state - the state's word, NULL when off */
const char *
queueserv_cluster_state(
    const struct qs *qs, const struct counts *k, const char **node)
{
	static char host[64];

	if (qs->cs.cluster_redis[0] == '\0')
		return NULL;
	if (qs->cs.cluster_node[0] != '\0')
		*node = qs->cs.cluster_node;
	else {
		if (gethostname(host, sizeof(host)) == -1)
			(void)strlcpy(host, "node", sizeof(host));
		host[sizeof(host) - 1] = '\0';
		*node = host;
	}
	return k->cluster == 1	 ? "shared"
	       : k->cluster == 2 ? "local"
				 : "unused";
}

/* queueserv_cluster_text - one line: "cluster: node N, Redis A: ..." */
void
queueserv_cluster_text(
    const struct qs *qs, const struct counts *k, time_t now, FILE *fp)
{
	const char *state, *node;

	if ((state = queueserv_cluster_state(qs, k, &node)) == NULL)
		return;
	fprintf(fp, "cluster: node %s, Redis %s: ", node, qs->cs.cluster_redis);
	if (strcmp(state, "unused") == 0)
		fprintf(fp, "no delivery yet\n");
	else
		fprintf(fp, "%s for %llds\n",
		    strcmp(state, "shared") == 0
			? "limits shared"
			: "unreachable, local shares (limit / expected_nodes)",
		    (long long)now - k->cluster_since);
}

/* queueserv_cluster_json - ,"cluster":{...}, nothing when off */
void
queueserv_cluster_json(
    const struct qs *qs, const struct counts *k, time_t now, FILE *fp)
{
	const char *state, *node;

	/* Off: no member at all, so the object is what it was without. */
	if ((state = queueserv_cluster_state(qs, k, &node)) == NULL)
		return;
	fprintf(fp, ",\"cluster\":{\"node\":");
	json_out_str(fp, node);
	fprintf(fp, ",\"redis\":");
	json_out_str(fp, qs->cs.cluster_redis);
	fprintf(fp,
	    ",\"state\":\"%s\",\"expected_nodes\":%lld,\"since\":", state,
	    qs->cs.cluster_expected_nodes);
	if (strcmp(state, "unused") == 0)
		fprintf(fp, "null,\"for\":null}");
	else
		fprintf(fp, "%lld,\"for\":%lld}", k->cluster_since,
		    (long long)now - k->cluster_since);
}
