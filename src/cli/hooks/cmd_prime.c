/*
 * cmd_prime.c — `thatch prime`: run the thatch-project-primer skill in a
 * fresh session of the first agent CLI on PATH (opencode, then Cursor's
 * agent, then claude; hosts-hooks-cli §1.3, §7.3). The child gets
 * /dev/null as stdin and our stdout/stderr; thatch exits with its status
 * (1 if a signal ended it). prime itself never touches the database.
 */
#include "cli/cmd.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/err.h"
#include "util/os/spawn.h"

#define PRIME_PROMPT	"Load the thatch-project-primer skill and follow it " \
	"to prime this project's thatch memory store."

static int
cmd_prime_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	static const struct {
		const char	*prog, *notice;
		const char	*argv[5];
	} agents[] = {
		{ "opencode", "opencode", { "opencode", "run", PRIME_PROMPT } },
		{ "agent", "cursor agent", { "agent", "-p", PRIME_PROMPT,
		    "--approve-mcps" } },
		{ "claude", "claude", { "claude", PRIME_PROMPT } },
	};
	char	*path = NULL;
	size_t	 i;
	pid_t	 pid;
	int	 st, fd;

	(void)argc;
	(void)argv;
	for (i = 0; i < sizeof(agents) / sizeof(agents[0]); i++)
		if ((path = spawn_which(agents[i].prog)) != NULL)
			break;
	if (path == NULL) {
		err_set(&ctx->err, "no agent CLI found on PATH; install "
		    "opencode, agent (Cursor) or claude");
		return CMD_FAILED;
	}
	fprintf(stderr, "[thatch] priming via %s\n", agents[i].notice);
	fflush(stdout);
	if ((pid = fork()) < 0) {
		free(path);
		err_errno(&ctx->err, "cannot start %s", agents[i].prog);
		return CMD_FAILED;
	}
	if (pid == 0) {
		if ((fd = open("/dev/null", O_RDONLY)) >= 0)
			dup2(fd, STDIN_FILENO);
		execv(path, (char *const *)agents[i].argv);
		_exit(127);
	}
	free(path);
	while (waitpid(pid, &st, 0) < 0)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

const struct cmd_entry cmd_prime_entry = {
	.name = "prime",
	.args = "",
	.max_args = 0,
	.env = "PATH",
	.example = "thatch prime",
	.summary = "seed this project's store with an agent session",
	.exec = cmd_prime_exec,
};
