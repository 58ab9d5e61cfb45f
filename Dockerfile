# syntax=docker/dockerfile:1
# Build: docker build -t debatebot .
# Run:   docker run -p 8080:8080 --env-file debatebot.env debatebot
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
# pylint, ShellCheck, Cppcheck, and Node.js with the ESLint above — and git, as a non-root user.
FROM node:22-bookworm-slim
RUN apt-get update \
	&& DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		bandit pyflakes3 pylint shellcheck cppcheck git ca-certificates \
	&& rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/go /usr/local/go
COPY --from=eslint /opt/debatebot/eslint /opt/debatebot/eslint
COPY --from=build /out/debatebot /usr/local/bin/debatebot
RUN useradd --system --uid 10001 --home-dir /home/debatebot --create-home debatebot
USER debatebot
# The type-checked analysis never downloads modules (it runs the go command with GOPROXY=off);
# GOTOOLCHAIN=local keeps the go command from fetching another toolchain. The go command's build
# cache is in the user's home.
ENV PATH=/usr/local/go/bin:$PATH GOTOOLCHAIN=local \
	DEBATEBOT_ESLINT_DIR=/opt/debatebot/eslint \
	DEBATEBOT_ADDR=:8080 DEBATEBOT_DATABASE_URL=sqlite:/tmp/debatebot.db
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/debatebot"]
CMD ["serve"]
