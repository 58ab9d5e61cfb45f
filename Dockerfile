# syntax=docker/dockerfile:1
# Build: docker build -t debatebot .                          (the App: debatebot serve)
# Run:   docker run -p 8080:8080 -v debatebot-data:/home/debatebot/.local/share/debatebot --env-file debatebot.env debatebot
# The Action's prebuilt image: docker build --target action -t ghcr.io/OWNER/debatebot-action .
# (the same image without a USER, as GitHub requires of a Docker action; see README.md)
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.Version=${VERSION}" -o /out/debatebot ./cmd/debatebot

# ESLint, eslint-plugin-security, typescript-eslint (parser and rules), TypeScript and Node.js
# types at the versions of the lockfile, with debatebot's own config and report formatter
# (tools/eslint). Node 22 on the same Debian release as the runtime: the ESLint 9 toolchain needs
# Node 20 or later, newer than Debian's nodejs.
FROM node:22-bookworm-slim AS eslint
WORKDIR /opt/debatebot/eslint
COPY tools/eslint/package.json tools/eslint/package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tools/eslint/eslint.config.mjs tools/eslint/formatter.cjs ./

# The runtime: Debian slim with the analyzers the review runs when they are installed — the Go
# toolchain (the type-checked Go analysis loads packages with the go command), bandit, pyflakes,
# pylint, ShellCheck, Cppcheck, and Node.js with the ESLint above — and git.
FROM node:22-bookworm-slim AS runtime
RUN apt-get update \
	&& DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		bandit pyflakes3 pylint shellcheck cppcheck git ca-certificates \
	&& rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/go /usr/local/go
COPY --from=eslint /opt/debatebot/eslint /opt/debatebot/eslint
COPY --from=build /out/debatebot /usr/local/bin/debatebot
# The type-checked analysis never downloads modules (it runs the go command with GOPROXY=off);
# GOTOOLCHAIN=local keeps the go command from fetching another toolchain.
ENV PATH=/usr/local/go/bin:$PATH GOTOOLCHAIN=local \
	DEBATEBOT_ESLINT_DIR=/opt/debatebot/eslint
ENTRYPOINT ["/usr/local/bin/debatebot"]

# The Action as a prebuilt Docker action (docker build --target action): GitHub runs a Docker
# action as the image's default user and its documentation says the image must not set USER,
# so this stage sets none; the workflow's workspace is mounted and owned by GitHub's runner.
FROM runtime AS action
CMD ["action"]

# The App (the default target): serve as a non-root user. Its data directory keeps the
# credentials the setup page stores (mount a volume there) and, by default, the database; the
# go command's build cache is in the user's home.
FROM runtime AS serve
RUN useradd --system --uid 10001 --home-dir /home/debatebot --create-home debatebot \
	&& install -d -o debatebot -g debatebot -m 0700 /home/debatebot/.local/share/debatebot
USER debatebot
ENV DEBATEBOT_ADDR=:8080 \
	DEBATEBOT_DATABASE_URL=sqlite:/home/debatebot/.local/share/debatebot/debatebot.db
EXPOSE 8080
CMD ["serve"]
