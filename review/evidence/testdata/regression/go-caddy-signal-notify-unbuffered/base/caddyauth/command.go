package caddyauth

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"strings"
)

// terminalState is what restore needs to put the terminal back.
type terminalState struct{ echo bool }

func getState(fd int) *terminalState { return &terminalState{echo: true} }

func restore(fd int, s *terminalState) {}

func isTerminal(fd int) bool { return fd == int(os.Stdin.Fd()) }

// cmdHashPassword reads a password from the terminal and prints its hash.
func cmdHashPassword(hash func([]byte) ([]byte, error)) (int, error) {
	fd := int(os.Stdin.Fd())
	if isTerminal(fd) {
		// ensure the terminal state is restored on SIGINT
		state := getState(fd)
		c := make(chan os.Signal, 1)
		signal.Notify(c, os.Interrupt)
		go func() {
			<-c
			restore(fd, state)
			os.Exit(1)
		}()
		defer signal.Stop(c)
	}
	line, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil {
		return 1, fmt.Errorf("reading password: %w", err)
	}
	h, err := hash([]byte(strings.TrimSpace(line)))
	if err != nil {
		return 1, fmt.Errorf("hashing password: %w", err)
	}
	fmt.Println(string(h))
	return 0, nil
}
